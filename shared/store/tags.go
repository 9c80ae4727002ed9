package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Tags are an owner kind nested like locations (kinds.go, nesting.go): home TAG#id, public
// copy PUB#TAG#id (no tag_id when the parent tag is private), entity of type tag, child links
// CHILD#id in CAMPAIGN#c#TAG#parent.

type tagItem struct {
	layout.MetaAttrs
	layout.OwnerAttrs
	ParentID      *int64 `dynamo:"tag_id,omitempty"`
	Colour        string `dynamo:"colour,omitempty"`
	IsAutoApplied bool   `dynamo:"is_auto_applied"`
	IsHidden      bool   `dynamo:"is_hidden"`
	// ParentHidden: the parent is private, so the public copy leaves it out (layout.CopyItem).
	ParentHidden bool `dynamo:"parent_hidden,omitempty"`
}

func toTagItem(t *domain.Tag) tagItem {
	return tagItem{MetaAttrs: layout.ToMetaAttrs(layout.CampaignPK(t.CampaignID), layout.RecordSK(layout.TagPrefix, t.ID), t.Meta),
		OwnerAttrs: toOwnerAttrs(t.Owner), ParentID: t.ParentID, Colour: t.Colour, IsAutoApplied: t.IsAutoApplied,
		IsHidden: t.IsHidden, ParentHidden: t.ParentID != nil && t.ParentPrivate}
}

func (it tagItem) tag() domain.Tag {
	return domain.Tag{Meta: it.Meta(), Owner: it.Owner(), ParentID: it.ParentID, Colour: it.Colour,
		IsAutoApplied: it.IsAutoApplied, IsHidden: it.IsHidden}
}

// GetTag reads one tag and its public copy (read ahead on tag routes: one round trip);
// ErrNotFound when there is none. ParentPrivate as GetLocation's.
func (s *Store) GetTag(ctx context.Context, cid, id int64) (*domain.Tag, error) {
	it, parentHidden, err := getNested[tagItem](ctx, s, layout.TagKind, cid, id)
	if err != nil {
		return nil, err
	}
	t := it.tag()
	t.ParentPrivate = t.ParentID != nil && parentHidden
	return &t, nil
}

// TagAncestry reads the chain from tag id upwards (id first), at most max links (ancestry).
func (s *Store) TagAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return s.ancestry(ctx, layout.TagKind, cid, id, max)
}

// ListTags reads one page of the campaign's tags, ordered by id, as ListLocations.
func (s *Store) ListTags(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Tag], error) {
	return listNested(ctx, s, layout.TagKind, cid, f, hidePrivate, p, tagItem.tag)
}

// CreateTag stores a new tag, its entity and its link in its parent tag in one transaction,
// as CreateLocation.
func (s *Store) CreateTag(ctx context.Context, t *domain.Tag) error {
	return s.createNested(ctx, layout.TagKind, &t.Meta, &t.Owner, t.ParentID, &t.Ancestry, &t.ParentPrivate, func() any { return toTagItem(t) }, s.newTagPack(t))
}

// UpdateTag writes next over prev, as UpdateLocation: conditional on the version read and on
// the new parent chain; the link, the entity and the children's public copies follow in the
// same transaction.
func (s *Store) UpdateTag(ctx context.Context, prev, next *domain.Tag) error {
	checks, parentPrivate, placed, err := s.nestedUpdate(ctx, layout.TagKind, next.CampaignID, next.ID, prev.ParentID, next.ParentID, next.Ancestry, prev.IsPrivate, next.IsPrivate)
	if err != nil {
		return err
	}
	if placed {
		next.ParentPrivate = parentPrivate
	}
	checks = append(checks, s.tagPackPrivacy(prev, next))
	return s.updateOwner(ctx, layout.TagKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toTagItem(next) }, checks...)
}

// DeleteTag deletes a tag: its children become roots, its entity's posts, events, attributes
// and relations go (deleteOwner); its member pack goes in the first step, its member items
// with the cascade.
func (s *Store) DeleteTag(ctx context.Context, t *domain.Tag) error {
	return s.deleteOwner(ctx, layout.TagKind, &t.Meta, &t.Owner, s.linkParent(layout.TagKind, t.CampaignID, t.ID, t.ParentID, nil, t.IsPrivate, t.IsPrivate), s.tagPackGone(t))
}

// ResumeTagDelete finishes a delete of tag id that failed after its first step.
func (s *Store) ResumeTagDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, layout.TagPrefix, id)
}
