/* Java's Double.toString (java_double.c). */
#ifndef GR_CLI_JAVA_DOUBLE_H
#define GR_CLI_JAVA_DOUBLE_H

#include <stddef.h>

/** v as Java prints it: the shortest digits that read back as v; plain notation with at
 *  least one decimal for 1e-3 <= |v| < 1e7 ("100.0", "0.001"), otherwise d.dddE<exp>
 *  ("2.0E7", "1.0E-4"). */
void cli_java_double(double v, char *out, size_t size);

#endif
