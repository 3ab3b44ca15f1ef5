/* similar_int.h: what similar.c takes from similar_terms.c. */
#ifndef DTK_SIMILAR_INT_H
#define DTK_SIMILAR_INT_H

#include <stddef.h>

/* The glossary: rows of a Chinese word of two characters and up to three
 * English words meaning the same (NULL after the last); a row of NULLs ends
 * it. */
extern const char *const dtk_similar_glossary[][4];

#endif
