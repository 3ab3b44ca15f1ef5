/* view.c: entries and nodes as JSON, the shape docs/commands.md documents. */
#include "dtk/view.h"

#include "dtk/index.h"
#include "dtk/kb.h"

static void S_json_source(struct dtk_json *j, const struct dtk_kb *kb, const char *id)
{
	const struct dtk_source *s = dtk_kb_source(kb, id);
	dtk_json_object(j);
	dtk_json_key(j, "id");
	dtk_json_string(j, id);
	dtk_json_key(j, "title");
	dtk_json_string(j, s ? s->title : NULL);
	dtk_json_key(j, "url");
	dtk_json_string(j, s ? s->url : NULL);
	dtk_json_end(j, '}');
}

static void S_json_date(struct dtk_json *j, const char *key, dtk_date d)
{
	char buf[11];
	dtk_json_key(j, key);
	dtk_json_string(j, d ? dtk_date_format(buf, d) : NULL);
}

void dtk_view_entry_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_entry *e)
{
	size_t i;

	dtk_json_object(j);
	dtk_json_key(j, "id");
	dtk_json_string(j, e->id);
	dtk_json_key(j, "node");
	dtk_json_string(j, e->node->name);
	dtk_json_key(j, "title");
	dtk_json_string(j, e->title);
	dtk_json_key(j, "claim");
	dtk_json_string(j, e->claim);
	dtk_json_key(j, "confidence");
	dtk_json_string(j, dtk_confidence_names[e->confidence]);
	dtk_json_key(j, "candidate");
	dtk_json_bool(j, dtk_entry_is_candidate(kb, e));
	dtk_json_key(j, "source");
	S_json_source(j, kb, e->source.id);
	dtk_json_key(j, "verified_by");
	dtk_json_array(j);
	for (i = 0; i < e->n_verified_by; i++)
		S_json_source(j, kb, e->verified_by[i].id);
	dtk_json_end(j, ']');
	S_json_date(j, "created", e->created);
	S_json_date(j, "reviewed", e->reviewed);
	S_json_date(j, "fresh", dtk_entry_fresh(e));
	dtk_json_key(j, "used");
	dtk_json_int(j, e->used);
	dtk_json_key(j, "cited");
	dtk_json_int(j, e->cited);
	dtk_json_key(j, "closed");
	dtk_json_bool(j, e->closed);
	dtk_json_key(j, "relates");
	dtk_json_array(j);
	for (i = 0; i < e->n_relates; i++)
		dtk_json_string(j, e->relates[i].id);
	dtk_json_end(j, ']');
	dtk_json_key(j, "contradicts");
	dtk_json_array(j);
	for (i = 0; i < e->n_contradicts; i++) {
		dtk_json_object(j);
		dtk_json_key(j, "id");
		dtk_json_string(j, e->contradicts[i].ref.id);
		dtk_json_key(j, "status");
		dtk_json_string(j, e->contradicts[i].open ? "open" : "resolved");
		dtk_json_key(j, "note");
		dtk_json_string(j, e->contradicts[i].note);
		dtk_json_end(j, '}');
	}
	dtk_json_end(j, ']');
	dtk_json_end(j, '}');
}

void dtk_view_node_json(struct dtk_json *j, const struct dtk_kb *kb, const struct dtk_node *node)
{
	size_t i;

	dtk_json_object(j);
	dtk_json_key(j, "node");
	dtk_json_string(j, node->name);
	dtk_json_key(j, "category");
	dtk_json_string(j, node->category >= 0 ? kb->categories[node->category].name : NULL);
	dtk_json_key(j, "bloom");
	dtk_json_string(j, dtk_bloom_names[node->bloom]);
	dtk_json_key(j, "stance");
	dtk_json_string(j, node->stance);
	dtk_json_key(j, "tentative");
	dtk_json_bool(j, node->stance && !dtk_node_has_high(node));
	dtk_json_key(j, "entries");
	dtk_json_array(j);
	for (i = 0; i < node->n_entries; i++)
		dtk_view_entry_json(j, kb, &node->entries[i]);
	dtk_json_end(j, ']');
	dtk_json_end(j, '}');
}

