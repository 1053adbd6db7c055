package engine

import (
	"strings"

	"github.com/truora/minidyn/interpreter/language"
)

// updateExpr is a parsed UpdateExpression and what its actions do.
type updateExpr struct {
	x       *exprs
	stmt    *language.UpdateStatement
	actions []updateAction
}

type updateAction struct {
	kind  language.TokenType // SET, REMOVE, ADD or DELETE
	path  path
	value *av                 // the placeholder's value when the action's operand is one
	right language.Expression // the operand
}

// typeNames are DynamoDB's names of types in operand errors.
var typeNames = map[string]string{"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
	"M": "MAP", "L": "LIST", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}

// parseUpdate parses an update expression (nil: none given) and checks what
// DynamoDB checks before it reads the item: syntax, placeholders, operand
// types of ADD and DELETE, paths that overlap.
func (x *exprs) parseUpdate(expr *string) (*updateExpr, error) {
	if expr == nil {
		return nil, nil
	}
	if strings.TrimSpace(*expr) == "" {
		return nil, validation("Invalid UpdateExpression: The expression can not be empty;")
	}
	if err := x.use("UpdateExpression", *expr); err != nil {
		return nil, err
	}
	if err := x.checkUpdate(*expr); err != nil {
		return nil, err
	}
	aliased, err := x.alias("UpdateExpression", *expr)
	if err != nil {
		return nil, err
	}
	p := language.NewUpdateParser(language.NewLexer(aliased))
	stmt := p.ParseUpdateExpression()
	if errs := p.Errors(); len(errs) > 0 {
		return nil, validationf("Invalid UpdateExpression: Syntax error; %s", strings.Join(errs, "; "))
	}
	ue, ok := stmt.Expression.(*language.UpdateExpression)
	if !ok {
		return nil, validation("Invalid UpdateExpression: Syntax error")
	}
	u := &updateExpr{x: x, stmt: stmt}
	var paths []path
	for _, e := range ue.Expressions {
		act, ok := e.(*language.ActionExpression)
		if !ok {
			return nil, validation("Invalid UpdateExpression: Syntax error")
		}
		pth, err := x.pathOf(act.Left)
		if err != nil {
			return nil, validation("Invalid UpdateExpression: " + err.Error())
		}
		a := updateAction{kind: act.Token.Type, path: pth, right: act.Right}
		if id, ok := act.Right.(*language.Identifier); ok && strings.HasPrefix(id.Value, ":") {
			a.value = x.values[id.Value]
		}
		if err := a.checkOperand(); err != nil {
			return nil, err
		}
		u.actions = append(u.actions, a)
		paths = append(paths, pth)
	}
	if err := checkOverlaps("UpdateExpression", paths); err != nil {
		return nil, err
	}
	return u, nil
}

func (a updateAction) checkOperand() error {
	if a.value == nil {
		return nil
	}
	t := typeOf(a.value)
	switch {
	case a.kind == language.ADD && t != "N" && t != "SS" && t != "NS" && t != "BS":
		return validationf("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: %s, typeSet: ALLOWED_FOR_ADD_OPERAND", typeNames[t])
	case a.kind == language.DELETE && t != "SS" && t != "NS" && t != "BS":
		return validationf("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: %s, typeSet: ALLOWED_FOR_DELETE_OPERAND", typeNames[t])
	}
	return nil
}

// checkKeys refuses an update of a key attribute.
func (u *updateExpr) checkKeys(keys []string) error {
	if u == nil {
		return nil
	}
	for _, a := range u.actions {
		for _, k := range keys {
			if a.path[0].Key == k {
				return validationf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", k)
			}
		}
	}
	return nil
}

// returnedPaths are what UPDATED_OLD and UPDATED_NEW return of an item (the
// item before or after the update), as DynamoDB Local answers: the whole
// top-level attribute of every path the update names that the item holds.
func (u *updateExpr) returnedPaths(it item) []path {
	var out []path
	for _, a := range u.actions {
		if valueAt(it, a.path) != nil {
			out = append(out, a.path[:1])
		}
	}
	return out
}
