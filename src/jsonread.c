/* jsonread.c: JSON into the YAML tree, by jansson (see jsonread.h). */
#include "dtk/jsonread.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static struct dtk_yval *S_scalar(struct dtk_arena *a, enum dtk_ytype t, const char *s, size_t n)
{
	struct dtk_yval *v = dtk_arena_alloc(a, sizeof(*v));
	v->kind = DTK_Y_SCALAR;
	v->type = t;
	v->str = dtk_arena_strndup(a, s, n);
	v->len = n;
	v->line = v->col = 1;
	return v;
}

/* Returns the tree of j; depth counts nested collections. */
static struct dtk_yval *S_conv(struct dtk_arena *a, json_t *j, int depth)
{
	struct dtk_yval *v;
	char num[64];
	size_t i = 0;

	switch (json_typeof(j)) {
	case JSON_STRING:
		return S_scalar(a, DTK_YT_STR, json_string_value(j), json_string_length(j));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		return S_scalar(a, DTK_YT_INT, num, strlen(num));
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(j));
		return S_scalar(a, DTK_YT_FLOAT, num, strlen(num));
	case JSON_TRUE: return S_scalar(a, DTK_YT_BOOL, "true", 4);
	case JSON_FALSE: return S_scalar(a, DTK_YT_BOOL, "false", 5);
	case JSON_NULL: return S_scalar(a, DTK_YT_NULL, "null", 4);
	default: break;
	}
	if (depth >= DTK_MAX_DEPTH)
		return NULL;
	v = dtk_arena_alloc(a, sizeof(*v));
	v->line = v->col = 1;
	if (json_is_array(j)) {
		v->kind = DTK_Y_SEQ;
		v->n = json_array_size(j);
		v->items = dtk_arena_alloc(a, (v->n + 1) * sizeof(*v->items));
		for (i = 0; i < v->n; i++)
			if (!(v->items[i] = S_conv(a, json_array_get(j, i), depth + 1)))
				return NULL;
		return v;
	}
	v->kind = DTK_Y_MAP;
	v->n = 2 * json_object_size(j);
	v->items = dtk_arena_alloc(a, (v->n + 1) * sizeof(*v->items));
	{
		const char *key;
		json_t *val;
		json_object_foreach(j, key, val)
		{
			v->items[i++] = S_scalar(a, DTK_YT_STR, key, strlen(key));
			if (!(v->items[i++] = S_conv(a, val, depth + 1)))
				return NULL;
		}
	}
	return v;
}

int dtk_json_parse(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                   const char *buf, size_t len, struct dtk_diags *diags)
{
	json_error_t err;
	/* duplicate keys are errors, as in YAML files; any value at the top */
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);

	*out = NULL;
	if (!j) {
		dtk_diags_add(diags, path, err.line > 0 ? err.line : 1,
		              err.column > 0 ? err.column : 1, "%s", err.text);
		return -1;
	}
	*out = S_conv(arena, j, 0);
	json_decref(j);
	if (!*out) {
		dtk_diags_add(diags, path, 1, 1, "more than %d nested collections", DTK_MAX_DEPTH);
		return -1;
	}
	return 0;
}
