/*
 * ytree_int.h: what the files of the ytree module share (ytree.c builds the
 * tree from libyaml's events, ytree_error.c says libyaml's errors and the
 * mistakes libyaml would misname). Internal to them.
 */
#ifndef DTK_YTREE_INT_H
#define DTK_YTREE_INT_H

#include "dtk/ytree.h"

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* A collection being built: its value and where its items start on the
 * builder's item stack (the items of every open collection, innermost last). */
struct frame {
	struct dtk_yval *val;
	size_t start;
};

struct builder {
	struct dtk_arena *arena;
	const char *path, *buf;
	size_t len;
	/* a character index of libyaml's marks and its byte offset in buf */
	size_t mark_chars, mark_bytes;
	struct dtk_diags *diags;
	struct frame stack[DTK_MAX_DEPTH + 1];
	int depth;
	struct dtk_yval **items; /* the items of the open collections */
	size_t n_items, cap_items;
	struct dtk_yval *root;
	uint32_t off; /* added to libyaml's offsets: the byte order mark skipped */
	int errors, documents;
	size_t values; /* node events so far (items handed to each too) */
	/* dtk_yaml_parse_items: each item of a root sequence is built in an
	 * arena of its own (arena, while keep holds the tree's), handed to
	 * each and dropped */
	dtk_yaml_item_fn each;
	void *each_arg;
	struct dtk_arena *keep;
	uint32_t each_end; /* where the last item handed over ends */
};

/* Returns the 1-based column of libyaml's 0-based mark m. */
int dtk_ytree_col(yaml_mark_t m);
/* Adds an error of b's file at line, col (counted in b->errors). */
void dtk_ytree_error(struct builder *b, int line, int col, const char *fmt, ...) DTK_PRINTF(4, 5);
/* Sets *line and *col (1-based, col in characters) for byte offset off. */
void dtk_ytree_offset_pos(const char *buf, size_t len, size_t off, int *line, int *col);
/* Returns the byte offset in b's text of libyaml's character index idx. */
size_t dtk_ytree_mark_byte(struct builder *b, size_t idx);

/* Reports libyaml's error p, in words where it is a common mistake. */
void dtk_ytree_parser_error(struct builder *b, const yaml_parser_t *p);
/* Report byte order marks past the start, and the lines of a merge
 * conflict git left: YAML would misname both. */
void dtk_ytree_check_boms(struct builder *b);
void dtk_ytree_check_conflicts(struct builder *b);

#endif
