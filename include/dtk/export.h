/*
 * export.h: the knowledge base as a static HTML site, rendered by cmark-gfm:
 * index.html (INDEX.md, node names and entry ids linked, a search box over
 * titles and claims), nodes/<node>.html per node (each entry with an anchor,
 * its id), search.js (the search index), style.css and the marker .dtk-export,
 * all linked relatively so the site works from the file system.
 */
#ifndef DTK_EXPORT_H
#define DTK_EXPORT_H

#include "dtk/model.h"

/*
 * Writes the site into dir. dir must be missing (it is created), empty, or
 * a site this function wrote (it holds .dtk-export); any other directory is
 * refused before anything is written. Pages of nodes kb no longer has are
 * removed; *removed is set to how many. Returns the number of pages written,
 * or -1 with the error set.
 */
int dtk_export_html(const struct dtk_kb *kb, const char *dir, int *removed);

#endif
