package layout

func PackKey(cid, eid int64) ItemKey { return ItemKey{EntityPK(cid, eid), AttributesSK} }
