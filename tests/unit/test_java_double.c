/* cli_java_double against Java 17's Double.toString (values printed by a JVM). */
#include <string.h>

#include "../../src/cli/java_double.h"
#include "testutil.h"

int main(void) {
    static const struct {
        double v;
        const char *java;
    } cases[] = {{100, "100.0"},
                 {2e7, "2.0E7"},
                 {50.5, "50.5"},
                 {1e9, "1.0E9"},
                 {0.001, "0.001"},
                 {1e-4, "1.0E-4"},
                 {9999999.0, "9999999.0"},
                 {1e7, "1.0E7"},
                 {123456.789, "123456.789"},
                 {-5, "-5.0"},
                 {0.0, "0.0"},
                 {1.5e-4, "1.5E-4"},
                 {3.14, "3.14"},
                 {12345678.9, "1.23456789E7"},
                 {0.1, "0.1"},
                 {1.0 / 3, "0.3333333333333333"},
                 {1e300, "1.0E300"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[64];
        cli_java_double(cases[i].v, out, sizeof(out));
        ASSERT_STREQ(out, cases[i].java);
    }
    char small[4];
    cli_java_double(12345.5, small, sizeof(small)); /* cut short, still terminated */
    ASSERT_STREQ(small, "123");
    return 0;
}
