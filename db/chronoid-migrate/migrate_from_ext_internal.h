/*
 * migrate_from_ext_internal.h — "chronoid migrate from-extension": what its
 * files share.  Not installed.
 *
 *   migrate_from_ext.c        the entry point: connect, refuse, plan, switch
 *   migrate_from_ext_sql.c    the SQL: the inventory of dependents and the
 *                             steps, built by the server into temp tables
 *   migrate_from_ext_plan.c   printing the dependents and the steps
 *
 * Everything runs in one transaction on one fresh connection (search path
 * pinned to pg_catalog, pg_temp by db/pq).  The inventory is SQL that
 * writes pg_temp tables dropped at the transaction's end; every name it
 * puts into a statement goes through format('%I')/regclass output, so no
 * name is pasted by the C.  --plan rolls the transaction back.
 */
#ifndef CHRONOID_MIGRATE_FROM_EXT_INTERNAL_H
#define CHRONOID_MIGRATE_FROM_EXT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#define FX_SUB "migrate from-extension"

/* One extension the switch replaces. */
typedef struct fx_source
{
	const char *arg;			/* as the command line names it */
	const char *kind;			/* pgedge, uuidv7, ulid: fx_ctx.kind */
	const char *const *extnames;	/* its extension's names, NULL-ended */
	const char *const *libraries;	/* its libraries' names, NULL-ended */
	const char *label;			/* for messages */
} fx_source;

/* The inventory, in order: each statement fills pg_temp tables. */
extern const char *const fx_inventory_sql[];

/* Objects that cannot be carried over: (what, why) rows. */
extern const char fx_refusals_sql[];

/* The dependents found: (kind, name, detail) rows. */
extern const char fx_objects_sql[];

/* The steps: (what, sql, lock, duration, expect_true) rows in order. */
extern const char fx_steps_sql[];

/* The summary: extension, version, schema, target schema, total estimate. */
extern const char fx_summary_sql[];

/* migrate_from_ext_plan.c */
void		fx_print_plan(PGresult *summary, PGresult *objects, PGresult *steps,
						  const fx_source *src);

#endif							/* CHRONOID_MIGRATE_FROM_EXT_INTERNAL_H */
