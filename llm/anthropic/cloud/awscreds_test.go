package cloud

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestExportedCredentials(t *testing.T) {
	out := `{"Credentials": {"AccessKeyId": "ASIAEXPORT", "SecretAccessKey": "s3cr3t", "SessionToken": "tok", "Expiration": "2030-01-02T03:04:05Z"}}`
	c, err := exported{func(context.Context) ([]byte, error) { return []byte(out), nil }}.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessKeyID != "ASIAEXPORT" || c.SecretAccessKey != "s3cr3t" || c.SessionToken != "tok" || !c.CanExpire || c.Expires.Year() != 2030 {
		t.Errorf("%+v", c)
	}
	for _, bad := range []string{`not json s3cr3t`, `{"Credentials": {"AccessKeyId": "A"}}`, `{"Credentials": {"AccessKeyId": "A", "SecretAccessKey": "s3cr3t", "Expiration": "soon"}}`} {
		_, err := exported{func(context.Context) ([]byte, error) { return []byte(bad), nil }}.Retrieve(context.Background())
		if err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

type flaky struct {
	ok    bool
	calls int
}

func (f *flaky) Retrieve(context.Context) (aws.Credentials, error) {
	f.calls++
	if !f.ok {
		return aws.Credentials{}, errors.New("the SSO session has expired")
	}
	return aws.Credentials{AccessKeyID: "A", SecretAccessKey: "B"}, nil
}

// awsAuthRefresh runs when the credentials cannot be had, and they are asked for again;
// not more often than once in 30 s.
func TestAuthRefresh(t *testing.T) {
	inner := &flaky{}
	runs := 0
	clock := time.Unix(0, 0)
	r := &refreshing{inner: inner, now: func() time.Time { return clock }, refresh: func(context.Context) error {
		runs++
		inner.ok = true
		return nil
	}}
	if c, err := r.Retrieve(context.Background()); err != nil || c.AccessKeyID != "A" || runs != 1 {
		t.Fatalf("%+v %v after %d runs", c, err, runs)
	}
	inner.ok = false
	if _, err := r.Retrieve(context.Background()); err == nil || runs != 1 {
		t.Errorf("refreshed again within 30 s: %v, %d runs", err, runs)
	}
	clock = clock.Add(RefreshEvery)
	if _, err := r.Retrieve(context.Background()); err != nil || runs != 2 {
		t.Errorf("after 30 s: %v, %d runs", err, runs)
	}
	failing := &refreshing{inner: &flaky{}, now: time.Now, refresh: func(context.Context) error { return errors.New("awsAuthRefresh exited with status 1") }}
	if _, err := failing.Retrieve(context.Background()); err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "status 1") {
		t.Errorf("%v", err)
	}
}
