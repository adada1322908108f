package team

import "context"

type teammateKey struct{}

// WithTeammate marks ctx as the run of teammate name: a permission ask under it goes to
// the lead's approver labelled with that name (Teammate reports it).
func WithTeammate(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, teammateKey{}, name)
}

// Teammate is the name of the teammate whose run ctx belongs to ("" for the lead's).
func Teammate(ctx context.Context) string {
	s, _ := ctx.Value(teammateKey{}).(string)
	return s
}
