/*
 * tap.h — a tiny TAP producer for chronoid's C tests.  One test case is one
 * function; it passes when none of its EXPECTs failed.  Each case prints
 * one "ok N - name" or "not ok N - name" line; diagnostics go out as "# "
 * lines, which the runner (scripts/check.sh) shows on failure.
 */
#ifndef CID_TAP_H
#define CID_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	tap_cases;
static int	tap_failed_cases;
static int	tap_case_failures;

static inline void
tap_fail(const char *file, int line, const char *what)
{
	tap_case_failures++;
	printf("#   failed at %s:%d: %s\n", file, line, what);
}

#define EXPECT(cond) \
	do { if (!(cond)) tap_fail(__FILE__, __LINE__, #cond); } while (0)

#define EXPECT_EQ_INT(a, b) \
	do { \
		long long tap_a_ = (long long) (a), tap_b_ = (long long) (b); \
		if (tap_a_ != tap_b_) { \
			tap_fail(__FILE__, __LINE__, #a " == " #b); \
			printf("#     got %lld, expected %lld\n", tap_a_, tap_b_); \
		} \
	} while (0)

#define EXPECT_EQ_U64(a, b) \
	do { \
		uint64_t tap_a_ = (uint64_t) (a), tap_b_ = (uint64_t) (b); \
		if (tap_a_ != tap_b_) { \
			tap_fail(__FILE__, __LINE__, #a " == " #b); \
			printf("#     got %" PRIu64 ", expected %" PRIu64 "\n", tap_a_, tap_b_); \
		} \
	} while (0)

#define EXPECT_STR(a, b) \
	do { \
		const char *tap_a_ = (a), *tap_b_ = (b); \
		if (tap_a_ == NULL || tap_b_ == NULL || strcmp(tap_a_, tap_b_) != 0) { \
			tap_fail(__FILE__, __LINE__, #a " equals " #b); \
			printf("#     got \"%s\", expected \"%s\"\n", \
				   tap_a_ ? tap_a_ : "(null)", tap_b_ ? tap_b_ : "(null)"); \
		} \
	} while (0)

/* Run one case: TAP_CASE(test_fn) where test_fn is void test_fn(void). */
#define TAP_CASE(fn) tap_run_case(#fn, fn)

static inline void
tap_run_case(const char *name, void (*fn) (void))
{
	tap_case_failures = 0;
	fflush(stdout);
	fn();
	tap_cases++;
	if (tap_case_failures)
		tap_failed_cases++;
	printf("%s %d - %s\n", tap_case_failures ? "not ok" : "ok", tap_cases, name);
	fflush(stdout);
}

/* Print the plan; use as "return tap_done();" at the end of main. */
static inline int
tap_done(void)
{
	printf("1..%d\n", tap_cases);
	return tap_failed_cases ? 1 : 0;
}

#endif							/* CID_TAP_H */
