/* Java's Double.toString and Double.parseDouble (java_double.c). */
#ifndef GR_CLI_JAVA_DOUBLE_H
#define GR_CLI_JAVA_DOUBLE_H

#include <stdbool.h>
#include <stddef.h>

/** v as Java prints it: the shortest digits that read back as v; plain notation with at
 *  least one decimal for 1e-3 <= |v| < 1e7 ("100.0", "0.001"), otherwise d.dddE<exp>
 *  ("2.0E7", "1.0E-4"). */
void cli_java_double(double v, char *out, size_t size);
/** Java's Double.parseDouble: blanks around it are ignored, then [+-] and NaN, Infinity,
 *  a decimal (1, 1.5, .5, 1e9) or a hex number with its binary exponent (0x1.8p3), with an
 *  optional f/F/d/D suffix. False if s is anything else (NumberFormatException). */
bool cli_java_parse_double(const char *s, double *out);

#endif
