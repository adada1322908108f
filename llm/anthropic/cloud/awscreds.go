package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// AWSCommands are Claude Code's Bedrock credential commands, as the caller runs them
// (the person's own settings only; package keyhelper runs them).
type AWSCommands struct {
	// Export is awsCredentialExport's output: {"Credentials": {"AccessKeyId",
	// "SecretAccessKey", "SessionToken", "Expiration"}}. It takes the place of the AWS
	// chain, and runs again when what it gave expires.
	Export func(ctx context.Context) ([]byte, error)
	// Refresh is awsAuthRefresh (aws sso login and the like): run when the credentials
	// cannot be had, at most once in RefreshEvery, before they are asked for again.
	Refresh func(ctx context.Context) error
}

// RefreshEvery is the least time between two runs of awsAuthRefresh (Claude Code's).
const RefreshEvery = 30 * time.Second

// exported reads awsCredentialExport's output as AWS credentials.
type exported struct {
	run func(context.Context) ([]byte, error)
}

func (e exported) Retrieve(ctx context.Context) (aws.Credentials, error) {
	out, err := e.run(ctx)
	if err != nil {
		return aws.Credentials{}, err
	}
	var doc struct {
		Credentials struct {
			AccessKeyID     string `json:"AccessKeyId"`
			SecretAccessKey string
			SessionToken    string
			Expiration      string
		}
	}
	// Nothing of the output is quoted in an error: it holds secrets.
	if err := json.Unmarshal(out, &doc); err != nil {
		return aws.Credentials{}, errors.New(`awsCredentialExport printed no JSON of the form {"Credentials": {"AccessKeyId": …, "SecretAccessKey": …, "SessionToken": …}}`)
	}
	c := doc.Credentials
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return aws.Credentials{}, errors.New("awsCredentialExport printed no Credentials.AccessKeyId and Credentials.SecretAccessKey")
	}
	creds := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken, Source: "awsCredentialExport"}
	if s := strings.TrimSpace(c.Expiration); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return aws.Credentials{}, fmt.Errorf("awsCredentialExport: Credentials.Expiration %q is no RFC 3339 time", s)
		}
		creds.CanExpire, creds.Expires = true, t
	}
	return creds, nil
}

// refreshing asks inner for credentials and, when it has none, runs awsAuthRefresh (at
// most once in RefreshEvery) and asks again.
type refreshing struct {
	inner   aws.CredentialsProvider
	refresh func(context.Context) error
	now     func() time.Time

	mu   sync.Mutex
	last time.Time
}

func (r *refreshing) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := r.inner.Retrieve(ctx)
	if err == nil {
		return creds, nil
	}
	r.mu.Lock()
	due := r.last.IsZero() || r.now().Sub(r.last) >= RefreshEvery
	if due {
		r.last = r.now()
	}
	r.mu.Unlock()
	if !due {
		return creds, err
	}
	if rerr := r.refresh(ctx); rerr != nil {
		return creds, fmt.Errorf("%w; then %w", err, rerr)
	}
	if c, ok := r.inner.(*aws.CredentialsCache); ok {
		c.Invalidate()
	}
	return r.inner.Retrieve(ctx)
}

// withCommands puts the commands in cfg's credential chain.
func withCommands(cfg *aws.Config, cmds AWSCommands) {
	if cmds.Export != nil {
		cfg.Credentials = aws.NewCredentialsCache(exported{cmds.Export})
	}
	if cmds.Refresh != nil && cfg.Credentials != nil {
		cfg.Credentials = &refreshing{inner: cfg.Credentials, refresh: cmds.Refresh, now: time.Now}
	}
}
