/* lwIP's test/unit/lwip_check.h includes <config.h>, which its own build
 * system (the Unix port, not in Debian's source) generates empty. */
#ifndef TESTS_LWIP_CONFIG_H
#define TESTS_LWIP_CONFIG_H
#endif
