/*
 * model.h: the knowledge base in memory, as loaded and validated by kb.c.
 * Everything hangs off a struct dtk_kb and lives in its arena: nothing in it is
 * freed on its own; dtk_kb_free() frees it all.
 */
#ifndef DTK_MODEL_H
#define DTK_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* A calendar date as the integer YYYYMMDD (so that < compares dates); 0 = none. */
typedef int dtk_date;
/* The last date dtk knows (years have four digits). */
#define DTK_DATE_MAX 99991231

/* Parses "YYYY-MM-DD" (a real calendar date); returns 0 and sets *out, or -1. */
int dtk_date_parse(dtk_date *out, const char *s);
/* Formats d as "YYYY-MM-DD" into buf (at least 11 bytes); returns buf. */
char *dtk_date_format(char *buf, dtk_date d);
/* Returns d plus months, the day clamped to the length of the target month;
 * DTK_DATE_MAX when that is past year 9999. */
dtk_date dtk_date_add_months(dtk_date d, int months);
/* Returns today's date in local time. */
dtk_date dtk_date_today(void);

/* The most characters (code points) a text field may hold (docs/schema.md):
 * a title (of an entry, a source, the domain), shown wherever it is listed;
 * prose (a claim, a node's stance, a note, a retraction's reason). The loader reports a longer one
 * and the write commands refuse it. */
/* The longest node name whose file, "<name>.yaml", a file name holds. */
#define DTK_MAX_NAME 250
#define DTK_MAX_TITLE_CHARS 200
#define DTK_MAX_PROSE_CHARS 4000
/* the default budget of INDEX.md and of each generated page (wc -c, wc -l) */
#define DTK_INDEX_MAX_BYTES (24L * 1024)
#define DTK_INDEX_MAX_LINES 200L
/* Returns the limit of text key ("title", "claim", ...), or 0: none. */
size_t dtk_text_limit(const char *key);
/* Returns the number of characters (code points) of UTF-8 s[0..len). */
size_t dtk_utf8_chars(const char *s, size_t len);

/* Where a value stands in its file: 1-based line and column. */
struct dtk_pos {
	int line, col;
};

/* A reference to an id, kept with where it was written. */
struct dtk_ref {
	const char *id;
	struct dtk_pos pos;
};

enum dtk_bloom {
	DTK_BLOOM_REMEMBER,
	DTK_BLOOM_UNDERSTAND,
	DTK_BLOOM_APPLY,
	DTK_BLOOM_ANALYZE,
	DTK_BLOOM_EVALUATE,
	DTK_BLOOM_CREATE,
	DTK_BLOOM_COUNT
};
/* The names of the levels and of the confidences, NULL-terminated: the
 * choices of every option and tool argument that takes one. */
extern const char *const dtk_bloom_names[DTK_BLOOM_COUNT + 1];

enum dtk_confidence { DTK_CONF_HIGH, DTK_CONF_MEDIUM, DTK_CONF_LOW, DTK_CONF_COUNT };
extern const char *const dtk_confidence_names[DTK_CONF_COUNT + 1];

/* The keys of an entry, of a node file and of a source, in the one order
 * docs/schema.md gives, the schema checks and `dtk edit` writes them in;
 * '*' before a key marks it required. NULL-terminated. An entry's are one
 * table, X(NAME, "key"): dtk_entry_keys and schema.c's names of the keys
 * (E_NAME) are made from it, so they cannot disagree. A key added here:
 * docs/design.md, "A key of an entry", lists what else it touches. */
#define DTK_ENTRY_KEY_TABLE(X)                                                                     \
	X(ID, "*id")                                                                               \
	X(TITLE, "*title")                                                                         \
	X(CLAIM, "*claim")                                                                         \
	X(CONFIDENCE, "*confidence")                                                               \
	X(CONFIDENCE_CHANGED, "confidence_changed")                                                \
	X(CONFIDENCE_WAS, "confidence_was")                                                        \
	X(SOURCE, "*source")                                                                       \
	X(VERIFIED_BY, "verified_by")                                                              \
	X(CREATED, "*created")                                                                     \
	X(REVIEWED, "reviewed")                                                                    \
	X(USED, "used")                                                                            \
	X(CITED, "cited")                                                                          \
	X(CLOSED, "closed")                                                                        \
	X(RELATES, "relates")                                                                      \
	X(CONTRADICTS, "contradicts")                                                              \
	X(REVISED, "revised")                                                                      \
	X(SUPERSEDED_BY, "superseded_by")                                                          \
	X(SUPERSEDED, "superseded")                                                                \
	X(RETRACTED, "retracted")                                                                  \
	X(RETRACTED_REASON, "retracted_reason")
#define DTK_ENTRY_KEY_ONE(name, key) +1
enum { DTK_ENTRY_KEYS = 0 DTK_ENTRY_KEY_TABLE(DTK_ENTRY_KEY_ONE) };
extern const char *const dtk_entry_keys[DTK_ENTRY_KEYS + 1];
extern const char *const dtk_node_keys[];
extern const char *const dtk_source_keys[];

struct dtk_contradiction {
	struct dtk_ref ref;
	int open;         /* status: open (1) or resolved (0) */
	const char *note; /* may be NULL */
	dtk_date opened, resolved; /* when contradict and resolve set it; 0: absent */
};

struct dtk_node;
struct dtk_node_sum;

struct dtk_entry {
	const char *id, *title, *claim;
	struct dtk_node *node;
	struct dtk_ref source;
	struct dtk_ref *verified_by; /* NULL after a lean load: only counted */
	struct dtk_ref *relates;     /* lean loads keep only those outside the node */
	struct dtk_contradiction *contradicts;
	struct dtk_pos pos; /* of the "- " item */
	long used, cited;
	dtk_date created, reviewed; /* reviewed: 0 when absent */
	/* The entry's life after it was added (0 or NULL when absent):
	 * revised: when dtk edit last changed its text or source; an entry
	 * superseded by another, or retracted with a reason, is retired. */
	dtk_date revised, superseded, retracted;
	struct dtk_ref superseded_by;
	const char *retracted_reason;
	/* when dtk confidence (or verify --promote) last changed confidence,
	 * and from what (enum dtk_confidence); 0 when absent */
	dtk_date confidence_changed;
	unsigned char confidence_was;
	unsigned n_verified_by, n_relates, n_contradicts;
	unsigned char confidence; /* enum dtk_confidence */
	unsigned char closed;
};

/* Returns the freshness date: reviewed when present, else created; revised
 * (dtk edit) when later: a revision counts as a review. */
dtk_date dtk_entry_fresh(const struct dtk_entry *e);
/* Returns 1 when node has at least one high entry. */
int dtk_node_has_high(const struct dtk_node *node);
/* Returns 1 when e is retired (superseded or retracted): it stays in its
 * file, out of counts, lists and search. */
int dtk_entry_retired(const struct dtk_entry *e);
/* Returns 1 when e is high and live: in the high list, counted as high. */
int dtk_entry_high(const struct dtk_entry *e);
/* Returns the live (not retired) entries of node (its summary's count when
 * it has one). */
size_t dtk_node_live(const struct dtk_node *node);

struct dtk_node {
	const char *name;
	const char *path; /* "insights/<name>.yaml" */
	struct dtk_pos name_pos;
	enum dtk_bloom bloom;
	const char *stance; /* NULL when the node has none */
	struct dtk_entry *entries;
	size_t n_entries;
	struct dtk_entry **by_id; /* the entries sorted by id, each id once */
	size_t n_by_id;
	int category; /* index into kb->categories, -1 when in none */
	size_t order; /* after a full load: its index in kb->nodes */
	/* The entries that name other entries (relates, contradicts), in file
	 * order: those the loader checks once every node is read. */
	struct dtk_entry **linking;
	size_t n_linking;
	/* a base loaded with DTK_KB_TERMS: where the terms of its entries are
	 * (dtk_kb_node_terms reads them); else NULL */
	const struct dtk_node_terms *terms;
	/* its file's bytes hold no invisible character (invisible.h), no
	 * backslash (an escape that may spell one) and no comment after text
	 * on its line (one that may cut a value short), as read: dtk check's
	 * warnings need not read it again; 0 when not known */
	int clean;
	/* a load of the whole base: the node's summary (nodesum.h), which
	 * INDEX.md and the checks across files read; with DTK_KB_INDEX, the
	 * node may have it alone (no entries: n_entries 0) */
	const struct dtk_node_sum *sum;
};

/* An item of _glossary.yaml: words that mean the same, in any language,
 * one term for the duplicate gate and search (similar.h). */
struct dtk_gloss {
	const char *id;
	const char **terms;
	size_t n_terms;
	struct dtk_pos pos;
};

struct dtk_source {
	const char *id, *title, *url; /* url may be NULL */
	dtk_date read, revised;       /* revised: when dtk edit-source last changed it */
	struct dtk_pos pos;
};

/* A slot of a hash table of structs whose first member is their name (a
 * source, a node): the hash of the name, and the struct (NULL: empty). */
struct dtk_slot {
	uint64_t hash;
	const void *item;
};

struct dtk_category {
	const char *name;
	struct dtk_ref *nodes;
	size_t n_nodes;
};

struct dtk_hotspot {
	const char *id; /* NULL when absent (dtk hotspot assigns one) */
	struct dtk_ref node;
	struct dtk_ref *links; /* "domain/node" */
	size_t n_links;
	const char *note;
};

/* A gap of the page: closed ones (closed: a date) are not loaded. */
struct dtk_gap {
	const char *id; /* NULL when absent (dtk gap assigns one) */
	const char *text;
	struct dtk_ref flagged_by; /* id NULL when absent */
	struct dtk_ref *nodes;     /* the nodes it is about (none: NULL) */
	size_t n_nodes;
	dtk_date written; /* when its text was written (0: not known) */
};

struct dtk_bloom_change {
	const char *node;
	enum dtk_bloom from, to;
};

struct dtk_pair_count {
	const char *node;
	long count;
};

/* The kinds of a run's events (a record's 'events', docs/schema.md). */
enum dtk_event {
	DTK_EV_ADDED,
	DTK_EV_RAISED,
	DTK_EV_LOWERED,
	DTK_EV_OPENED,
	DTK_EV_RESOLVED,
	DTK_EV_SUPERSEDED,
	DTK_EV_RETRACTED,
	DTK_EV_REVISED,
	DTK_EV_NEWLY_STALE,
	DTK_EV_COUNT
};
/* Their names, NULL-terminated: the keys of a record's 'events'. */
extern const char *const dtk_event_names[DTK_EV_COUNT + 1];

struct dtk_record {
	dtk_date date, since; /* since: 0 when absent */
	struct dtk_pos pos;
	long new_entries, high_changes, stale, stance_rewrites, contradictions_new;
	dtk_date earliest;
	struct dtk_bloom_change *bloom_changes;
	size_t n_bloom_changes;
	const char *eval_scenario, *eval_verdict;
	int has_review;
	struct dtk_pair_count *pairs;
	size_t n_pairs;
	const char **cross_pairs;
	size_t n_cross_pairs;
	const char *review_verdict, *review_note; /* may be NULL */
	/* the month's events: entry ids, "a↔b" for contradictions (a record
	 * written before events were kept has none: has_events 0) */
	int has_events;
	const char **events[DTK_EV_COUNT];
	size_t n_events[DTK_EV_COUNT];
};

struct dtk_arena;
struct dtk_nodecache;
struct dtk_similar_index;
struct dtk_node_terms;

struct dtk_kb {
	struct dtk_arena *arena;
	const char *root; /* the directory holding insights/ */

	/* _domain.yaml */
	const char *domain, *title, *description, *positioning;
	struct dtk_category *categories;
	size_t n_categories;
	struct dtk_hotspot *hotspots;
	size_t n_hotspots;
	struct dtk_gap *gaps;
	size_t n_gaps;
	int stale_after_months, high_min_verified;
	/* INDEX.md's budget and each generated page's (policy.index_max_*) */
	long index_max_bytes, index_max_lines;
	int lang_en; /* lang: en (INDEX.md in English); zh, the default, otherwise */

	/* _sources.yaml */
	struct dtk_source *sources;
	size_t n_sources;
	/* A bit per sources[i] that an entry names (source or verified_by), for
	 * the "articles" figure; NULL when the base has no sources. One bitmap
	 * for the base: one per node cost 4 KB a node with 33,000 sources. */
	const unsigned char *sources_named;
	/* source_prefix[i]: a hash of the ids of sources[0..i), i from 0 to
	 * n_sources (nodesum.h: a summary names sources by their place),
	 * SipHash under source_key (the node cache's: one who writes
	 * _sources.yaml cannot make two lists hash alike); NULL in a load
	 * with no node cache, whose summaries name no sources */
	const uint64_t *source_prefix;
	uint64_t source_key[2];

	/* _glossary.yaml (optional), in file order */
	struct dtk_gloss *glossary;
	size_t n_glossary;

	/* _crystallizations.yaml, oldest first */
	struct dtk_record *records;
	size_t n_records;

	/* what the records of insights/_uses/ add to entries' counts, each
	 * entry and key once, sorted by key (used first) and id (dtk_kb_uses) */
	struct dtk_use_count *use_counts;
	size_t n_use_counts;
	/* the uses of the records not folded yet, by record name (in arena) */
	struct dtk_use_live *live_uses;
	size_t n_live_uses;

	/* node files: after a full load, in category order */
	struct dtk_node **nodes;
	size_t n_nodes;

	/* look-up indexes built by the loader */
	int sources_ok; /* _sources.yaml was read: unknown source ids are errors */
	/* sources by id and nodes by name: open addressing on a hash of the
	 * name, each once (mask + 1 slots; NULL when there are none). The
	 * source ids the slots point to are packed in one block. */
	struct dtk_slot *source_slots, *node_slots;
	size_t source_mask, node_mask;

	/* DTK_KB_TERMS: the node cache the nodes' terms are read from (owned;
	 * NULL when none) */
	struct dtk_nodecache *nodecache;
	/* DTK_KB_TERMS: the index of terms (similar.h) the load opened, for
	 * which DTK_KB_INDEX left the nodes it holds as summaries (owned; NULL
	 * when none) */
	struct dtk_similar_index *terms_index;

	/* the links by the node they name (links.h, dtk_links_index), in
	 * arena; NULL when not made */
	const struct dtk_links_index *links_index;
};

/* ---- look-ups and derived notions (model.c): below both the loader
 * (kb.c) and the schema (schema.c) ---- */
struct dtk_diags;
/* Return the node called name, the source called id, or NULL. */
struct dtk_node *dtk_kb_node(const struct dtk_kb *kb, const char *name);
const struct dtk_source *dtk_kb_source(const struct dtk_kb *kb, const char *id);
/* Build kb's tables of sources by id (repeated ids are reported to d; with
 * hash, kb->source_prefix under kb->source_key) and of nodes by name. */
void dtk_model_index_sources(struct dtk_kb *kb, int hash, struct dtk_diags *d);
void dtk_model_index_nodes(struct dtk_kb *kb);
/* Returns the node of kb whose name id's prefix is (dtk_entry_id_split),
 * or NULL; sets *suffix to what follows it and '-'. */
struct dtk_node *dtk_kb_id_node(const struct dtk_kb *kb, const char *id, const char **suffix);
/* What the records of insights/_uses/ add to entry id's count. */
struct dtk_use_count {
	const char *id;
	int cited; /* 0: used, 1: cited */
	long n;
};
/* How the name of a fold of records of insights/_uses/ begins
 * ("fold-<date>-<random>.yaml"): the one file a crystallization replaces the
 * records it folds with, each named in it (docs/schema.md, "Counts"). */
#define DTK_USES_FOLD "fold-"
/* A use in a record not folded yet (dtk crystallize folds them). */
struct dtk_use_live {
	const char *rec; /* the record's name, "<date>-<random>" */
	const char *id;
	int cited;
};
/* Returns what the records add to entry id's used (cited when cited is
 * set) in kb: its count is the node file's value plus this. */
long dtk_kb_uses(const struct dtk_kb *kb, const char *id, int cited);
/* Return the entry id of the base or of node, or NULL. */
struct dtk_entry *dtk_kb_entry(const struct dtk_kb *kb, const char *id);
struct dtk_entry *dtk_node_entry(const struct dtk_node *node, const char *id);
/* Returns 1 when id is an entry id, <node>-<suffix> (docs/schema.md): the
 * suffix three to nine digits (an id of old) or DTK_ID_SUFFIX_LEN characters
 * of DTK_ID_ALPHABET with a digit and a letter among them (a fresh id); sets
 * *node_len (when not NULL) to the prefix length. */
int dtk_entry_id_split(const char *id, size_t *node_len);
/* The fresh ids' suffixes: lowercase Crockford base32 (no i, l, o, u). */
#define DTK_ID_ALPHABET "0123456789abcdefghjkmnpqrstvwxyz"
#define DTK_ID_SUFFIX_LEN 7
/* Writes to buf (size at least strlen(node) + DTK_ID_SUFFIX_LEN + 2) the
 * fresh id of an entry of node born with title, claim and source, at try
 * nonce (0, then 1, ... while the id is taken): a hash of them all, so the
 * same entry born on two branches gets one id and different entries get
 * different ones but by chance (docs/schema.md). Returns buf. */
char *dtk_entry_id_birth(char *buf, size_t size, const char *node, const char *title,
                         const char *claim, const char *source, unsigned nonce);
/* Returns 1 when e is a candidate: not high, and exactly one verification short. */
int dtk_entry_is_candidate(const struct dtk_kb *kb, const struct dtk_entry *e);
/* The high rule: returns 1 when e has the verified_by sources kb's policy
 * asks of a high entry (policy.high_min_verified), else 0. */
int dtk_entry_verified_for_high(const struct dtk_kb *kb, const struct dtk_entry *e);
/* Returns 1 when e is stale at date d by kb's policy. */
int dtk_entry_is_stale(const struct dtk_kb *kb, const struct dtk_entry *e, dtk_date d);

#endif
