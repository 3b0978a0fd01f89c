// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* --set KEY=VALUE (and --name) applied to the config's YAML document, before
 * its typed walk reads it; see config_overrides.h. */
#define _GNU_SOURCE
#include "config_overrides.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static yaml_node_pair_t *map_find(yaml_document_t *doc, int map, const char *key)
{
	yaml_node_t *m = yaml_document_get_node(doc, map);
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return p;
	}
	return NULL;
}

static int add_scalar(yaml_document_t *doc, const char *s)
{
	/* plain, as if typed unquoted: 30s, 4 and true read as such */
	return yaml_document_add_scalar(doc, NULL, (yaml_char_t *)s, (int)strlen(s),
					YAML_PLAIN_SCALAR_STYLE);
}

static int remember_override(struct cfg_ctx *c, int index, const char *label)
{
	struct cfg_override_node *o =
		reallocarray(c->overrides, c->noverrides + 1, sizeof(*o));
	if (!o || index == 0)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	c->overrides = o;
	c->overrides[c->noverrides++] = (struct cfg_override_node){index, label};
	return 0;
}

/* Walks KEY's dotted path from the root mapping, creating mappings that are
 * missing, and sets the last key to VALUE as a plain scalar. The typed walk
 * afterwards checks the value like any other. Node pointers are re-fetched
 * after every addition: adding a node may move the document's node array. */
static int apply_override(struct cfg_ctx *c, const char *key, const char *value,
			  const char *label)
{
	yaml_document_t *doc = c->doc;
	char *path = strdup(key);
	if (!path)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	int map = 1; /* the root */
	int r = 0;
	char *save = NULL;

	for (char *seg = strtok_r(path, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
		bool last = (save == NULL || *save == '\0');
		yaml_node_t *m = yaml_document_get_node(doc, map);
		if (m->type != YAML_MAPPING_NODE) {
			r = errbuf_set(c->err, EINVAL, "%s: \"%.*s\" is not a mapping", label,
				       (int)(seg - path - 1), key);
			break;
		}
		yaml_node_pair_t *pair = map_find(doc, map, seg);
		if (last) {
			int v = add_scalar(doc, value);
			if ((r = remember_override(c, v, label)) < 0)
				break;
			pair = map_find(doc, map, seg);
			if (pair) {
				pair->value = v;
			} else {
				int k = add_scalar(doc, seg);
				if ((r = remember_override(c, k, label)) < 0)
					break;
				yaml_document_append_mapping_pair(doc, map, k, v);
			}
			break;
		}
		if (pair) {
			map = pair->value;
		} else {
			int k = add_scalar(doc, seg);
			int v = yaml_document_add_mapping(doc, NULL, YAML_ANY_MAPPING_STYLE);
			if ((r = remember_override(c, k, label)) < 0 ||
			    (r = remember_override(c, v, label)) < 0)
				break;
			yaml_document_append_mapping_pair(doc, map, k, v);
			map = v;
		}
	}
	free(path);
	return r;
}

static bool override_key_valid(const char *key)
{
	size_t n = strlen(key);
	return n > 0 && key[0] != '.' && key[n - 1] != '.' && !strstr(key, "..");
}

int config_override(struct cfg_ctx *c, char *kv, const char *label)
{
	char *eq = strchr(kv, '=');
	if (!eq || (*eq = '\0', !override_key_valid(kv))) {
		if (eq)
			*eq = '=';
		return errbuf_set(c->err, EINVAL,
				  "%s: expected KEY=VALUE with a dotted KEY such as episode.duration", label);
	}
	int r = apply_override(c, kv, eq + 1, label);
	*eq = '=';
	return r;
}
