package engine

import (
	"slices"
	"strings"
)

// Reading an index that projects some attributes (KEYS_ONLY, INCLUDE), as
// DynamoDB Local does: a local index fetches from the table what the read
// asks for beyond its projection (Select ALL_ATTRIBUTES, a
// ProjectionExpression); a global one cannot and refuses the read. A Query's
// filter may read only projected attributes; a Scan's is read against the
// whole item.

// checkSelect refuses what no target allows: ALL_ATTRIBUTES or
// ALL_PROJECTED_ATTRIBUTES with a ProjectionExpression,
// ALL_PROJECTED_ATTRIBUTES on a table.
func (p *readParams) checkSelect() error {
	switch {
	case (p.Select == "ALL_ATTRIBUTES" || p.Select == "ALL_PROJECTED_ATTRIBUTES") && p.ProjectionExpression != "":
		return validation("Cannot specify the ProjectionExpression when choosing to get " + p.Select)
	case p.Select == "ALL_PROJECTED_ATTRIBUTES" && p.IndexName == "":
		return validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
	}
	return nil
}

// planIndexRead sets how a read of an index that projects some attributes
// answers, or refuses it; a table or an index projecting all is read as it
// is.
func (p *readParams) planIndexRead(t tbl, plan *scanPlan, query bool) error {
	ix := t.meta.index(p.IndexName)
	if ix == nil || ix.Projection == "ALL" {
		return nil
	}
	var missing []string
	if plan.proj != nil {
		missing = t.meta.unprojected(ix, plan.proj.topNames())
	}
	switch {
	case !ix.Local && p.Select == "ALL_ATTRIBUTES":
		return validationf("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.Name)
	case !ix.Local && len(missing) > 0:
		return validationf("One or more parameter values were invalid: Global secondary index %s does not project [%s]", ix.Name, strings.Join(missing, ", "))
	}
	if plan.filter != nil && query {
		if names := t.meta.unprojected(ix, plan.filter.names()); len(names) > 0 {
			return validationf("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]", ix.Name, strings.Join(names, ", "))
		}
	}
	plan.filterItem = plan.filter != nil && !query
	plan.fetch = ix.Local && (p.Select == "ALL_ATTRIBUTES" || len(missing) > 0)
	return nil
}

// unprojected are the attributes of names the index does not project, sorted.
func (m *tableMeta) unprojected(ix *index, names []string) []string {
	var out []string
	for _, n := range names {
		if !m.projects(ix, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// tableRecord is the table's record of the item an index entry stands for.
func (t tbl) tableRecord(entry []byte) ([]byte, error) {
	it, err := decodeRecord(entry)
	if err != nil {
		return nil, err
	}
	k, err := t.keyOfItemAnySize(t.keyItem(it))
	if err != nil {
		return nil, err
	}
	rec := t.items().Get(k)
	if rec == nil {
		return nil, internalError("an index entry without its item")
	}
	return rec, nil
}
