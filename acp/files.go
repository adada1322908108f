package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/tools"
)

// editorFiles reads and writes text files through the client (fs/read_text_file,
// fs/write_text_file), for what it advertised: the editor's buffers, unsaved changes
// included, are what Read, Edit and Write see and change. The paths are the tools'
// resolved ones, inside the workspace and past the permission policy.
type editorFiles struct {
	s           *session
	read, write bool
}

var _ tools.Editor = (*editorFiles)(nil)

var errEditorGone = errors.New("the editor closed the connection")

func (f *editorFiles) ReadText(ctx context.Context, path string) (string, bool, error) {
	if !f.read {
		return "", false, nil
	}
	if f.s.a.tap.closed() {
		return "", false, errEditorGone
	}
	ctx, cancel := f.s.a.tap.whileOpen(ctx)
	defer cancel()
	resp, err := f.s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path})
	if err != nil {
		return "", false, err
	}
	return resp.Content, true, nil
}

func (f *editorFiles) WriteText(ctx context.Context, path, text string) (bool, error) {
	if !f.write {
		return false, nil
	}
	if f.s.a.tap.closed() {
		return false, errEditorGone
	}
	ctx, cancel := f.s.a.tap.whileOpen(ctx)
	defer cancel()
	if _, err := f.s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path, Content: text}); err != nil {
		return false, err
	}
	return true, nil
}
