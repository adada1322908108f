package harness

import (
	"io"

	"github.com/ouroagent/ouro/llm/resolve"
)

// Connection is how this session reaches its model: where its requests go and where its
// key comes from (for /status).
func (s *Session) Connection() resolve.Connection { return s.conn }

// CheckConnection resolves the model and its provider as Open would (the settings, their
// env, the name), without opening anything: an interactive start calls it before it asks
// whether the folder is trusted, so that a missing key or a model that cannot be reached
// is said first, not after a question whose answer would not matter. A problem with the
// settings themselves is left to Open, which reports it after the question.
func CheckConnection(opts Options) error {
	if opts.Model.Provider != nil {
		return nil
	}
	d, err := locate(opts.Dirs)
	if err != nil {
		return nil
	}
	set, err := loadSettings(d, opts.Access, io.Discard, nil)
	if err != nil {
		return nil
	}
	env := settingsEnv(set, io.Discard)
	_, err = connect(opts.Model, set.Model.Value, env, resolve.KeyHelper(set, env, d.cwd, io.Discard), io.Discard)
	return err
}
