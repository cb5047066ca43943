/*
 * addon.c — the Node-API module of libchronoid: its init defines what each
 * file of the glue exports (ids.c, parse.c, snowflake.c, lease.c,
 * block.c) and the constants.  Nothing below calls back up into it.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <string.h>

#include "addon.h"

static napi_value
init(napi_env env, napi_value exports)
{
	napi_value	presets;
	bool		ok = true;

	if (!cid_node_ids_init(env, exports))
		return cid_node_napi_failed(env, "chronoid: cannot define the ID functions");
	ok = cid_node_parse_init(env, exports) &&
		cid_node_snowflake_init(env, exports) &&
		cid_node_lease_init(env, exports) &&
		cid_node_block_init(env, exports);
	if (!ok)
		return cid_node_napi_failed(env, "chronoid: cannot define the functions");

	if (napi_create_array(env, &presets) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an array");
	for (uint32_t i = 0; cid_layout_preset_names[i] != NULL; i++)
		ok = ok && napi_set_element(env, presets, i,
									cid_node_latin1(env, cid_layout_preset_names[i],
													strlen(cid_layout_preset_names[i]))) == napi_ok;
	ok = ok && cid_node_set(env, exports, "presets", presets) &&
		cid_node_set(env, exports, "version", cid_node_latin1(env, cid_version(), strlen(cid_version()))) &&
		cid_node_set(env, exports, "maxBatch", cid_node_number(env, (double) CID_BIND_MAX_BATCH));
	if (!ok)
		return cid_node_napi_failed(env, "chronoid: cannot define the constants");
	return exports;
}

/* The macro defines node_api_module_get_api_version_v1 without a prototype. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT()
{
	return init(env, exports);
}
