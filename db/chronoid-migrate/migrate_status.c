/*
 * migrate_status.c — "chronoid migrate status": where a key move stands,
 * as lines or as JSON (keys that do not apply are left out).
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"

static const char *
next_action(enum mig_step s)
{
	switch (s)
	{
		case MIG_INDEXED:
			return "swap";
		case MIG_SWAPPED:
			return "swap (to validate the foreign keys)";
		case MIG_DONE:
			return "finish (when rollback is no longer wanted)";
		case MIG_CONVERTED:
			return NULL;
		case MIG_ROLLING:
			return "rollback (to finish it)";
		default:
			return "run";
	}
}

int
mig_status(mig_ctx *c)
{
	const char *next = next_action(c->st.step);
	int			i;
	char		n[32],
				e[32];

	if (c->o->json)
	{
		cli_out_str("{\"table\":");
		cli_out_json_str(c->t.qname, strlen(c->t.qname));
		cli_out_str(",\"column\":");
		cli_out_json_str(c->st.key, strlen(c->st.key));
		cli_out_str(",\"to\":");
		cli_out_json_str(c->st.target, strlen(c->st.target));
		if (c->st.time_from[0] != '\0')
		{
			cli_out_str(",\"time_from\":");
			cli_out_json_str(c->st.time_from, strlen(c->st.time_from));
		}
		cli_out_str(",\"step\":");
		cli_out_json_str(mig_step_name(c->st.step), strlen(mig_step_name(c->st.step)));
		if (c->st.step != MIG_CONVERTED)
		{
			cli_out_str(",\"rows_backfilled\":");
			cli_out_i64(c->st.rows_done);
			if (c->t.rows_est >= 0)
			{
				cli_out_str(",\"rows_estimated\":");
				cli_out_i64(c->t.rows_est);
			}
			cli_out_str(",\"children\":[");
			for (i = 0; i < c->t.nchildren; i++)
			{
				const mig_child *ch = &c->t.children[i];

				cli_out_str(i ? ",{\"table\":" : "{\"table\":");
				cli_out_json_str(ch->qname, strlen(ch->qname));
				cli_out_str(",\"foreign_key\":");
				cli_out_json_str(ch->con_raw, strlen(ch->con_raw));
				cli_out_str(",\"rows_backfilled\":");
				cli_out_i64(ch->done_rows);
				cli_out_str(ch->done ? ",\"backfilled\":true}" : ",\"backfilled\":false}");
			}
			cli_out_str("]");
		}
		if (next != NULL)
		{
			cli_out_str(",\"next\":");
			cli_out_json_str(next, strlen(next));
		}
		cli_out_str("}\n");
		return cli_out_flush() ? MIG_EXIT_OK : MIG_EXIT_FAIL;
	}
	printf("table:    %s\n", c->t.qname);
	printf("key:      %s -> %s%s%s\n", c->st.key, c->st.target,
		   c->st.time_from[0] ? ", old rows by " : "", c->st.time_from);
	printf("step:     %s\n", mig_step_name(c->st.step));
	if (c->st.step != MIG_CONVERTED)
	{
		mig_fmt_count(n, sizeof(n), c->st.rows_done);
		mig_fmt_count(e, sizeof(e), c->t.rows_est);
		printf("backfill: %s rows%s%s%s\n", n, c->t.rows_est >= 0 ? " of ~" : "", c->t.rows_est >= 0 ? e : "",
			   c->st.step >= MIG_BACKFILLED ? " (done)" : "");
		for (i = 0; i < c->t.nchildren; i++)
		{
			const mig_child *ch = &c->t.children[i];

			mig_fmt_count(n, sizeof(n), ch->done_rows);
			printf("child:    %s (%s): %s rows%s\n", ch->qname, ch->con_raw, n, ch->done ? " (done)" : "");
		}
	}
	if (next != NULL)
		printf("next:     chronoid migrate %s\n", next);
	return MIG_EXIT_OK;
}
