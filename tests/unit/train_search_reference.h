/*
 * train_search_reference.h - the exhaustive plan search, kept for the
 * tests as the reference the shared-work search must match (see
 * train_search_reference.c).  Memory and thread-safety as
 * plan/train_search.h; free the result with plan_train_search_result_free().
 */
#ifndef GPUPLAN_TESTS_TRAIN_SEARCH_REFERENCE_H
#define GPUPLAN_TESTS_TRAIN_SEARCH_REFERENCE_H

#include "plan/train_search.h"

int train_search_reference(const struct catalog_snapshot *s, const struct estimate_input *base,
                           const struct plan_train_constraints *c, struct plan_train_result *out,
                           struct estimate_error *err);

#endif
