// Package post models a blog post.
package post

import (
	"time"

	"example.com/blog/slug"
)

// Post is one article.
type Post struct {
	Title     string
	Body      string
	Published time.Time
}

// Path is the URL path of the post, e.g. /2024/05/hello-world.
func (p Post) Path() string {
	return p.Published.Format("/2006/01/") + slug.Slugify(p.Title)
}
