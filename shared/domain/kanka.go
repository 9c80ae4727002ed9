package domain

// Kanka today (DESIGN.md section 9): what the current Kanka API calls things, beside the spec's
// 2022 names. The records are the same; only their spelling differs.

// ID is Kanka's visibility_id: 1 all, 2 admin, 3 self-admin, 4 self, 5 member. The empty
// visibility of an old record is `all`.
func (v Visibility) ID() int {
	switch v {
	case VisibilityAdmin:
		return 2
	case VisibilitySelfAdmin:
		return 3
	case VisibilitySelf:
		return 4
	case VisibilityMember:
		return 5
	}
	return 1
}
