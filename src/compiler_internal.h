/*
 * compiler_internal.h — compiler attributes (not installed) shared by the
 * core, the commands, the database tools and the language packages, so
 * that each is spelled once with its fallback for other compilers.
 */
#ifndef CID_COMPILER_INTERNAL_H
#define CID_COMPILER_INTERNAL_H

/*
 * Argument f of a function is a printf format whose arguments start at a:
 * the compiler then checks every call's arguments against the format.
 */
#if defined(__GNUC__) || defined(__clang__)
#define CID_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CID_PRINTF(f, a)
#endif

#endif							/* CID_COMPILER_INTERNAL_H */
