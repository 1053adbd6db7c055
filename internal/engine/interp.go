package engine

import (
	"slices"

	"github.com/truora/minidyn/interpreter/language"
)

// addAttributes puts an item's attributes into the interpreter's
// environment.
func addAttributes(env *language.Environment, it item) error {
	for k, v := range it {
		obj, err := toObject(v)
		if err != nil {
			return err
		}
		env.Set(k, obj)
	}
	return nil
}

// toObject converts a value for the interpreter, which cannot read an empty
// binary (DynamoDB allows one outside keys) at any depth.
func toObject(v *av) (language.Object, error) {
	switch {
	case v.M != nil:
		m := make(map[string]language.Object, len(v.M))
		for k, e := range v.M {
			obj, err := toObject(e)
			if err != nil {
				return nil, err
			}
			m[k] = obj
		}
		return &language.Map{Value: m}, nil
	case v.L != nil:
		l := make([]language.Object, len(v.L))
		for i, e := range v.L {
			obj, err := toObject(e)
			if err != nil {
				return nil, err
			}
			l[i] = obj
		}
		return &language.List{Value: l}, nil
	case typeOf(v) == "B" && len(v.B) == 0:
		return &language.Binary{Value: []byte{}}, nil
	}
	return language.MapToObject(v)
}

// equalAV compares two values, sets as sets.
func equalAV(a, b *av) bool {
	if typeOf(a) != typeOf(b) {
		return false
	}
	switch {
	case a.S != nil:
		return *a.S == *b.S
	case a.N != nil:
		return *a.N == *b.N
	case a.BOOL != nil:
		return *a.BOOL == *b.BOOL
	case a.NULL != nil:
		return true
	case a.M != nil:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, v := range a.M {
			if w, ok := b.M[k]; !ok || !equalAV(v, w) {
				return false
			}
		}
		return true
	case a.L != nil:
		return slices.EqualFunc(a.L, b.L, equalAV)
	case a.SS != nil:
		return sameStrings(a.SS, b.SS)
	case a.NS != nil:
		return sameStrings(a.NS, b.NS)
	case a.BS != nil:
		return sameStrings(bytesAsStrings(a.BS), bytesAsStrings(b.BS))
	}
	return string(a.B) == string(b.B)
}

func sameStrings(a, b []*string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]bool{}
	for _, s := range a {
		set[*s] = true
	}
	for _, s := range b {
		if !set[*s] {
			return false
		}
	}
	return true
}

func bytesAsStrings(bs [][]byte) []*string {
	out := make([]*string, len(bs))
	for i, b := range bs {
		s := string(b)
		out[i] = &s
	}
	return out
}

// decideIfNotExists replaces each if_not_exists(path, operand) in an
// operand by the path when the item holds it, else by the operand.
func (u *updateExpr) decideIfNotExists(e language.Expression, it item) language.Expression {
	switch n := e.(type) {
	case *language.CallExpression:
		if isCall(n, "if_not_exists") && len(n.Arguments) == 2 {
			if p, err := u.x.pathOf(n.Arguments[0]); err == nil && valueAt(it, p) != nil {
				return n.Arguments[0]
			}
			return u.decideIfNotExists(n.Arguments[1], it)
		}
		c := *n
		c.Arguments = make([]language.Expression, len(n.Arguments))
		for i, a := range n.Arguments {
			c.Arguments[i] = u.decideIfNotExists(a, it)
		}
		return &c
	case *language.InfixExpression:
		c := *n
		c.Left, c.Right = u.decideIfNotExists(n.Left, it), u.decideIfNotExists(n.Right, it)
		return &c
	}
	return e
}

// safeEvalUpdate runs an update; the interpreter panics on a list index past
// the end, which DynamoDB refuses as a path invalid for the item.
func safeEvalUpdate(stmt *language.UpdateStatement, env *language.Environment) (res language.Object) {
	if stmt == nil {
		return &language.Null{}
	}
	defer func() {
		if p := recover(); p != nil {
			res = &language.Error{Message: "The document path provided in the update expression is invalid for update"}
		}
	}()
	return language.EvalUpdate(stmt, env)
}
