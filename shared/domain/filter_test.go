package domain

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

func ptr[T any](v T) *T { return &v }

func TestReadFilterSpeaksKankasLanguage(t *testing.T) {
	t.Parallel()
	sync := time.Date(2019, 3, 21, 19, 17, 42, 207577000, time.UTC)
	cases := []struct {
		name string
		in   Input
		keys FilterKeys
		want Filter
	}{
		{"substring, lower-cased", Input{"name": "Keep"}, FilterRecords, Filter{Name: []Term{{Contains, "keep"}}}},
		{"not containing", Input{"name": "!keep"}, FilterRecords, Filter{Name: []Term{{NotContains, "keep"}}}},
		{"every leading ! is the operator", Input{"name": "!!keep"}, FilterRecords, Filter{Name: []Term{{NotContains, "keep"}}}},
		{"exact", Input{"type": "Tower!"}, FilterRecords, Filter{Type: []Term{{Equals, "tower"}}}},
		{"empty", Input{"type": "!!"}, FilterRecords, Filter{Type: []Term{{IsEmpty, ""}}}},
		{"several terms, each with its own operator", Input{"name": "!a;b!;c;!!"}, FilterRecords,
			Filter{Name: []Term{{NotContains, "a"}, {Equals, "b"}, {Contains, "c"}, {IsEmpty, ""}}}},
		{"empty terms and a bare ! skipped", Input{"name": ";a;;!;"}, FilterRecords, Filter{Name: []Term{{Contains, "a"}}}},
		{"a term of 0 is a term", Input{"name": "0"}, FilterRecords, Filter{Name: []Term{{Contains, "0"}}}},
		{"empty value filters nothing", Input{"name": nil}, FilterRecords, Filter{}},
		{"tags, all by default", Input{"tags": []string{"3", "1", "3"}}, FilterRecords, Filter{Tags: []int64{3, 1}}},
		{"tags any", Input{"tags": []string{"3"}, "tags_option": "any"}, FilterRecords, Filter{Tags: []int64{3}, TagsMatch: TagsAny}},
		{"tags exclude", Input{"tags": []string{"3"}, "tags_option": "exclude"}, FilterRecords, Filter{Tags: []int64{3}, TagsMatch: TagsExclude}},
		{"no tags at all needs no tags[]", Input{"tags_option": "none"}, FilterRecords, Filter{TagsMatch: TagsNone}},
		{"authors", Input{"created_by": "4", "updated_by": "5"}, FilterRecords, Filter{CreatedBy: ptr(int64(4)), UpdatedBy: ptr(int64(5))}},
		{"privacy", Input{"is_private": "true"}, FilterRecords, Filter{IsPrivate: ptr(true)}},
		{"lastSync", Input{"lastSync": "2019-03-21T19:17:42.207577Z"}, FilterRecords, Filter{UpdatedAfter: &sync}},
		{"lastSync with trailing text", Input{"lastSync": "2019-03-21T19:17:42.207577Z?related=1"}, FilterRecords, Filter{UpdatedAfter: &sync}},
		{"unreadable lastSync is ignored", Input{"lastSync": "yesterday"}, FilterRecords, Filter{}},
		{"lastSync 0 is ignored", Input{"lastSync": []string{"0"}}, FilterRecords, Filter{}},
		{"parent by location", Input{"parent_location_id": "7"}, FilterRecords | FilterParent, Filter{ParentLocationID: ptr(int64(7))}},
		{"parent by location_id", Input{"location_id": "7"}, FilterRecords | FilterParent, Filter{ParentLocationID: ptr(int64(7))}},
		{"parent by entity", Input{"parent_id": "9"}, FilterRecords | FilterParent, Filter{ParentEntityID: ptr(int64(9))}},
		{"filters a list does not take are ignored", Input{"type": "x", "tags": "zz", "is_private": "maybe", "parent_id": "x"},
			FilterName | FilterAuthors, Filter{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadFilter(c.in, c.keys)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestReadFilterRefusesBadValuesNamingTheParameter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		in    Input
		field string
	}{
		{"tags option", Input{"tags_option": "bogus"}, "tags_option"},
		{"tags option, odd case", Input{"tags_option": "ANY"}, "tags_option"},
		{"created_by not a number", Input{"created_by": "me"}, "created_by"},
		{"updated_by zero", Input{"updated_by": "0"}, "updated_by"},
		{"is_private", Input{"is_private": "perhaps"}, "is_private"},
		{"a tag", Input{"tags": []string{"1", "x"}}, "tags.1"},
		{"parent_id", Input{"parent_id": "-1"}, "parent_id"},
		{"parent_location_id", Input{"parent_location_id": "x"}, "parent_location_id"},
		{"too many terms", Input{"name": strings.Repeat("a;", MaxFilterTerms+1)}, "name"},
		{"too long", Input{"type": strings.Repeat("a", MaxFilterLength+1)}, "type"},
		{"too many tags", Input{"tags": strings.Split(strings.Repeat("1,", MaxFilterTags)+"2", ",")}, "tags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadFilter(c.in, FilterRecords|FilterParent)
			e, ok := err.(*apperr.Error)
			if !ok || e.Code != apperr.EInvalid || e.Fields == nil || len(e.Fields.Messages(c.field)) == 0 {
				t.Fatalf("err %v, want a 422 naming %s", err, c.field)
			}
		})
	}
}

func TestTermMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		term  string
		value string
		want  bool
	}{
		{"keep", "Candlekeep", true},
		{"KEEP", "Candlekeep", true},
		{"!keep", "Candlekeep", false},
		{"!keep", "", true},
		{"candlekeep!", "CandleKeep", true},
		{"candle!", "Candlekeep", false},
		{"!!", "", true},
		{"!!", "x", false},
	}
	for _, c := range cases {
		if got := ParseTerm(c.term).Match(c.value); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.term, c.value, got, c.want)
		}
	}
}
