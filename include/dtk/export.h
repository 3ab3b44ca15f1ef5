/*
 * export.h: the knowledge base as a static HTML site, rendered by cmark-gfm:
 * index.html (INDEX.md, its node names linked), one <node>.html per node and
 * style.css, all linked relatively so the site works from the file system.
 */
#ifndef DTK_EXPORT_H
#define DTK_EXPORT_H

#include "dtk/model.h"

/* Writes the site into dir (created when missing). Returns the number of
 * pages written, or -1 with the error set. */
int dtk_export_html(const struct dtk_kb *kb, const char *dir);

#endif
