//go:build !unix

package logtail

// noFollow: off Unix there is no O_NOFOLLOW; open's regular-file check
// is the guard.
const noFollow = 0
