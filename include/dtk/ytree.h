/*
 * ytree.h: a YAML file as a small tree of values that remember where they were
 * written. Built from libyaml's event stream (ytree.c is the only module
 * that includes <yaml.h>); everything YAML allows but a knowledge base must not
 * hold (aliases, anchors, foreign tags, complex or duplicate keys, several
 * documents, excessive nesting or size) is reported as an error.
 */
#ifndef DTK_YTREE_H
#define DTK_YTREE_H

#include "dtk/dtk.h"

#include <stdint.h>
#include <string.h>

/* Limits on one input file; see docs/design.md. */
#define DTK_MAX_FILE_BYTES (16u << 20)  /* 16 MiB */
#define DTK_MAX_DEPTH 32                /* nested collections */
#define DTK_MAX_SCALAR_BYTES (1u << 20) /* 1 MiB */
#define DTK_MAX_VALUES (1u << 19)       /* values in one file (_sources.yaml too) */
#define DTK_MAX_FILES 100000            /* files in insights/ */

enum dtk_ykind { DTK_Y_SCALAR, DTK_Y_MAP, DTK_Y_SEQ };

/* The type of a scalar by the YAML 1.2 core schema: only plain (unquoted)
 * scalars can be anything but a string. */
enum dtk_ytype { DTK_YT_STR, DTK_YT_NULL, DTK_YT_BOOL, DTK_YT_INT, DTK_YT_FLOAT };

/* How a value was written. */
enum dtk_ystyle {
	DTK_YS_PLAIN,   /* scalars */
	DTK_YS_SINGLE,  /* 'quoted' */
	DTK_YS_DOUBLE,  /* "quoted" */
	DTK_YS_LITERAL, /* | */
	DTK_YS_FOLDED,  /* > */
	DTK_YS_BLOCK,   /* collections: one item or key per line */
	DTK_YS_FLOW     /* collections: [a, b] or {k: v} */
};

struct dtk_yval {
	enum dtk_ykind kind;
	enum dtk_ytype type; /* scalars only */
	int line, col;       /* 1-based */
	/* The value's source text is buf[start, end) of the buffer given to
	 * dtk_yaml_parse (a leading byte order mark counted): from its first
	 * byte (a quote, '|' or '>', '[' or '{', a block collection's first key
	 * or '-') to just past its last: a closing quote or bracket, the last
	 * character of a plain scalar, of a block scalar's last line that is not
	 * blank (with keep chomping, '+', its last line; its line break not
	 * included), or of a block collection's last
	 * value. A comment after a value is not part of it. */
	uint32_t start, end;
	unsigned char style; /* enum dtk_ystyle */
	const char *str;     /* scalars: the value, NUL-terminated */
	size_t len;
	/* sequences: n items; mappings: n/2 pairs, key at 2i, value at 2i+1 */
	struct dtk_yval **items;
	size_t n;
};

/*
 * Parses buf[0..len) as one YAML document, allocating the tree in arena.
 * path is only used in diagnostics. Returns 0 and sets *out (NULL when the
 * file holds no document), or -1 after adding every error found to diags.
 * After errors that left the document whole (libyaml read it to its end: a
 * repeated key, a key that is not a scalar, a tag, an anchor or alias, a
 * NUL escape) *out is still set, so that its other errors can be found: a
 * repeated key and a key that is no scalar are taken out with their values.
 */
int dtk_yaml_parse(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                   const char *buf, size_t len, struct dtk_diags *diags);

/* Takes one item of a root sequence (see dtk_yaml_parse_items). */
typedef void (*dtk_yaml_item_fn)(void *arg, const struct dtk_yval *item);

/*
 * As dtk_yaml_parse, except that when the document is a sequence, each of
 * its items is built in memory of its own, handed to each (as soon as it is
 * whole, in order) and freed when each returns: *out is then the sequence
 * without its items (n is 0). Items are handed over even when the file turns
 * out to hold errors further on (the return value says so at the end): what
 * each made of them is then to be dropped. So a file of many small items is
 * never held whole as a tree.
 */
int dtk_yaml_parse_items(struct dtk_yval **out, struct dtk_arena *arena, const char *path,
                         const char *buf, size_t len, struct dtk_diags *diags,
                         dtk_yaml_item_fn each, void *arg);

/* Returns the type that s (NUL-terminated) has when written as a plain
 * scalar, by the YAML 1.2 core schema. */
enum dtk_ytype dtk_yaml_resolve(const char *s);

/* Returns the value of the key of n bytes in mapping m, or NULL. */
const struct dtk_yval *dtk_yval_getn(const struct dtk_yval *m, const char *key, size_t n);

/* Returns the value of key in mapping m, or NULL. (Inline: the length of a
 * literal key is then known when compiling.) */
static inline const struct dtk_yval *dtk_yval_get(const struct dtk_yval *m, const char *key)
{
	return dtk_yval_getn(m, key, strlen(key));
}

/* Returns the string of key in mapping m (m may be NULL or no mapping), or
 * NULL when absent or not a scalar. */
const char *dtk_yval_str(const struct dtk_yval *m, const char *key);
/* Returns the index of the item of m's list key that is s (sub NULL), or
 * whose key sub is s (a list of mappings); -1 when none. */
int dtk_yval_list_find(const struct dtk_yval *m, const char *key, const char *s, const char *sub);
/* Returns the length of m's list key (0 when absent or no list). */
size_t dtk_yval_list_len(const struct dtk_yval *m, const char *key);

/* Returns a word for v's kind or type ("a mapping", "an integer", ...). */
const char *dtk_yval_describe(const struct dtk_yval *v);

#endif
