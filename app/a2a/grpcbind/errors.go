package grpcbind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/structpb"

	"aimdesk/app/a2a"
)

// CodeFor is the gRPC status code of an A2A error (A2A v1.0 §5.4).
func CodeFor(rpcCode int) codes.Code {
	switch rpcCode {
	case a2a.CodeTaskNotFound:
		return codes.NotFound
	case a2a.CodeTaskNotCancelable, a2a.CodePushNotificationNotSupported, a2a.CodeUnsupportedOperation,
		a2a.CodeExtendedAgentCardNotConfigured, a2a.CodeExtensionSupportRequired, a2a.CodeVersionNotSupported:
		return codes.FailedPrecondition
	case a2a.CodeContentTypeNotSupported, a2a.CodeInvalidParams, a2a.CodeInvalidRequest, a2a.CodeParseError:
		return codes.InvalidArgument
	case a2a.CodeMethodNotFound:
		return codes.Unimplemented
	case a2a.CodeVersionMismatch:
		return codes.Aborted
	}
	return codes.Internal
}

// rpcCodeFor is the JSON-RPC code for a gRPC status without an A2A
// ErrorInfo: the generic error of its class.
func rpcCodeFor(c codes.Code) (int, bool) {
	switch c {
	case codes.NotFound:
		return a2a.CodeTaskNotFound, true
	case codes.InvalidArgument, codes.OutOfRange:
		return a2a.CodeInvalidParams, true
	case codes.FailedPrecondition:
		return a2a.CodeUnsupportedOperation, true
	case codes.Unimplemented:
		return a2a.CodeMethodNotFound, true
	case codes.Aborted:
		return a2a.CodeVersionMismatch, true
	case codes.Internal, codes.Unknown, codes.DataLoss:
		return a2a.CodeInternalError, true
	}
	return 0, false
}

// StatusFor renders an A2A error as the gRPC status the binding answers
// with: the mapped code, the message, a google.rpc.ErrorInfo naming the A2A
// error, then the error's data objects as google.protobuf.Value details.
func StatusFor(e *a2a.RPCError) error {
	st := status.New(CodeFor(e.Code), e.Message)
	var details []protoadapt.MessageV1
	if reason := a2a.ReasonForCode(e.Code); reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: reason, Domain: a2a.ErrorDomain})
	}
	for _, d := range e.DataObjects() {
		var v structpb.Value
		if protojson.Unmarshal(d, &v) == nil {
			details = append(details, &v)
		}
	}
	if len(details) > 0 {
		if withDetails, err := st.WithDetails(details...); err == nil {
			st = withDetails
		}
	}
	return st.Err()
}

// ErrorFromStatus maps an error of a gRPC call to the error the JSON-RPC
// binding would give: an *a2a.RPCError by the ErrorInfo reason, else by
// status code; UNAUTHENTICATED and PERMISSION_DENIED as *a2a.HTTPError 401
// and 403; cancellation and deadlines as the context's error. Anything
// else (UNAVAILABLE: the agent cannot be reached) is returned wrapped.
func ErrorFromStatus(ctx context.Context, method string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return a2a.TransportError(ctx, method, err)
	}
	switch st.Code() {
	case codes.Unauthenticated:
		return &a2a.HTTPError{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized (gRPC UNAUTHENTICATED)", Body: st.Message()}
	case codes.PermissionDenied:
		return &a2a.HTTPError{StatusCode: http.StatusForbidden, Status: "403 Forbidden (gRPC PERMISSION_DENIED)", Body: st.Message()}
	case codes.Canceled, codes.DeadlineExceeded:
		if ctx.Err() != nil || context.Cause(ctx) != nil {
			return a2a.TransportError(ctx, method, errors.Join(context.Cause(ctx), err))
		}
	}
	code, found, data := statusDetails(st)
	if !found {
		if code, found = rpcCodeFor(st.Code()); !found {
			return fmt.Errorf("a2a: %s: %w", method, err)
		}
	}
	e := &a2a.RPCError{Code: code, Message: st.Message(), Method: method}
	if len(data) > 0 {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// statusDetails reads a status's details: the A2A error code named by the
// first ErrorInfo of domain a2a-protocol.org (or none) with a known reason
// (false if there is none), and the details as JSON-RPC error data.
func statusDetails(st *status.Status) (int, bool, []json.RawMessage) {
	code, found := 0, false
	var data []json.RawMessage
	for _, d := range st.Details() {
		switch v := d.(type) {
		case *errdetails.ErrorInfo:
			if !found && (v.GetDomain() == a2a.ErrorDomain || v.GetDomain() == "") {
				code, found = a2a.CodeForReason(v.GetReason())
			}
			if b, err := json.Marshal(map[string]any{
				"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": v.GetReason(),
				"domain": v.GetDomain(), "metadata": v.GetMetadata(),
			}); err == nil {
				data = append(data, b)
			}
		case *structpb.Value:
			if b, err := protojson.Marshal(v); err == nil {
				data = append(data, b)
			}
		}
	}
	return code, found, data
}
