/*
 * lang.h (internal): the words of INDEX.md in each language. Templates hold
 * {name} placeholders that index.c fills; each language keeps its own word
 * order. zh is the page the project started from; en is its translation.
 */
#ifndef DTK_LANG_H
#define DTK_LANG_H

struct dtk_lang {
	/* punctuation around lists: open, separator, close, sentence end */
	const char *lpar, *sep, *rpar, *stop;
	const char *status, *st_nodes, *st_with, *st_entries, *st_high, *st_last, *st_articles,
	        *st_positioning;
	const char *node_index, *node_cols[4], *tentative, *nodes_none;
	/* *_none: in place of a table or a list that would be empty */
	const char *hotspots, *hotspots_intro, *hot_cols[4], *hotspots_none;
	/* no_verdict: review's {verdict} when the record holds none */
	const char *contradictions, *review, *review_note, *no_verdict, *open_count, *open_item,
	        *open_note;
	const char *gaps, *gaps_intro, *gaps_intro_none, *gaps_names, *gap_flag, *candidates,
	        *candidate, *candidates_none;
	/* expiry_past/_coming: {past} of last_line, the earliest entry's expiry
	 * before the record's own date or not */
	const char *last, *last_line, *bloom_same, *bloom_changed, *no_record, *expiry_past,
	        *expiry_coming;
	/* last_line's {since} when no run came before; the plural ending of its
	 * counts ({hs}, {rs}, {cs}: "" for one, else this) */
	const char *since_none, *plural;
	/* a record's events (a record written before has none): counts after
	 * last_line; the contradictions opened and resolved, in 活跃矛盾 */
	const char *events_line, *events_contradictions;
	/* over the budget (docs/index-format.md, "The budget"): what is left out,
	 * with its count and where to find it; the generated pages */
	const char *cut_high, *cut_list, *cut_gap_nodes, *cut_cands, *cut_hotspots, *cut_opens,
	        *cut_gaps, *cut_stances, *pages_intro, *page_item, *page_title, *page_intro;
	/* the HTML export's pages; {x}: the one placeholder of a template */
	const char *x_entries, *x_stance, *x_tentative, *x_no_stance, *x_confidence, *x_candidate,
	        *x_created, *x_reviewed, *x_used, *x_cited, *x_closed, *x_source, *x_verified_by,
	        *x_relates, *x_contradicts_open, *x_contradicts_resolved, *x_search, *x_search_none,
	        *x_related_by, *x_contradicted_by_open, *x_contradicted_by_resolved, *x_flags_gap,
	        *x_superseded_by, *x_retracted, *x_retired_note, *x_retired, *x_supersedes;
};

extern const struct dtk_lang dtk_lang_zh, dtk_lang_en;
/* Their names, in that order (zh, en), NULL-terminated: dtk init --lang's choices. */
extern const char *const dtk_lang_names[];

#endif
