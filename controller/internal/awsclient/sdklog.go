package awsclient

import (
	"fmt"

	"github.com/aws/smithy-go/logging"
	"github.com/go-logr/logr"
)

// sdkLogger routes the SDK's own messages (e.g. "failed to discard remaining HTTP response body",
// a warning about a connection it will not reuse) into the controller's logger at debug level:
// the SDK's default writes them to stderr, where they land in the middle of a terminal's progress
// output. A failed call is reported by its error, not by these lines.
type sdkLogger struct{ log logr.Logger }

func (l sdkLogger) Logf(class logging.Classification, format string, v ...any) {
	l.log.V(1).Info(fmt.Sprintf(format, v...), "sdkLevel", string(class))
}
