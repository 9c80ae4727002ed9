package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// moduleTable names each module Lorekeep serves (domain.Modules: the owner kinds and the
// declared modules) by its entity type ("character") and its collection ("characters"), with
// the collection's REST path.
type moduleTable struct {
	paths map[string]string // name -> "/characters"
	names []string          // the collections, sorted: the tools' enum
	codes map[string]string // entity type -> collection
}

func newModuleTable() moduleTable {
	t := moduleTable{paths: map[string]string{}, codes: map[string]string{}}
	for _, m := range domain.Modules {
		coll := strings.ToLower(m.Plural)
		t.paths[coll], t.paths[m.Code] = "/"+coll, "/"+coll
		t.codes[m.Code] = coll
		t.names = append(t.names, coll)
	}
	sort.Strings(t.names)
	return t
}

// path is the collection path of a module named by its collection or entity type.
func (t moduleTable) path(name string) (string, error) {
	if p, ok := t.paths[strings.ToLower(strings.TrimSpace(name))]; ok {
		return p, nil
	}
	return "", fmt.Errorf("module: %q is not a module; use one of %s", name, strings.Join(t.names, ", "))
}

// enum is every accepted name of a module.
func (t moduleTable) enum(extra ...string) []any {
	var out []any
	for _, n := range t.names {
		out = append(out, n)
	}
	codes := make([]string, 0, len(t.codes))
	for c := range t.codes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		out = append(out, c)
	}
	for _, e := range extra {
		out = append(out, e)
	}
	return out
}
