/*
 * model_id.h - what a user types for a model, read as the id it names:
 * a Hugging Face Hub URL stands for its repository id, and a repository
 * id ("org/name", optionally a URL with "/tree/{rev}") names a repository
 * and a revision on the Hub.  The look-ups that follow (catalog snapshot,
 * team and fetched models, the Hub) take the id these functions give; the
 * catalog itself only matches ids exactly (catalog/catalog.h).
 *
 * Memory: nothing allocated; returned pointers point into the argument.
 * Thread-safety: pure functions.
 */
#ifndef GPUPLAN_MODELS_MODEL_ID_H
#define GPUPLAN_MODELS_MODEL_ID_H

#include <stdbool.h>
#include <stddef.h>

/*
 * typed past a Hub host prefix ("https://huggingface.co/", "hf.co/", ...,
 * case folded), or typed itself when it has none:
 * "https://huggingface.co/meta-llama/Llama-2-7b-hf" -> "meta-llama/Llama-2-7b-hf".
 */
const char *model_id_without_host(const char *typed);

/*
 * Read typed as a Hub repository: "org/name", a huggingface.co (or
 * endpoint, HF_ENDPOINT's value) URL, with "/tree/{rev}", "/blob/{rev}/..."
 * or "/resolve/{rev}/..." naming a revision.  Returns true with repo and
 * rev ("" when none) filled; false when typed is not a repository id (a
 * catalog id such as "llama-2-7b") or does not fit.
 */
bool model_id_hub_repo(const char *typed, const char *endpoint, char *repo, size_t repolen,
                       char *rev, size_t revlen);

#endif
