package ddbread

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/valyala/fastjson"
)

// apiError is an error answer: its HTTP status (which the retryer reads to
// retry 5xx answers) around the API error it names.
type apiError struct {
	status    int
	requestID string
	err       error
}

func (e *apiError) Error() string {
	return fmt.Sprintf("https response error StatusCode: %d, RequestID: %s, %v", e.status, e.requestID, e.err)
}

func (e *apiError) Unwrap() error       { return e.err }
func (e *apiError) HTTPStatusCode() int { return e.status }

// responseError reads an error answer ({"__type": "...#Code", "message":
// "..."}) into the SDK's error type for that code where the read operations
// declare one, so errors.As works as on the SDK's errors, else a
// smithy.GenericAPIError with the code.
func responseError(res *http.Response, body []byte) error {
	code, msg := "UnknownError", strings.TrimSpace(string(body))
	if v, err := fastjson.ParseBytes(body); err == nil {
		if t := string(v.GetStringBytes("__type")); t != "" {
			code = t[strings.LastIndexByte(t, '#')+1:]
		}
		if m := v.GetStringBytes("message"); m != nil {
			msg = string(m)
		} else if m := v.GetStringBytes("Message"); m != nil {
			msg = string(m)
		}
	}
	var err error
	switch code {
	case "ResourceNotFoundException":
		err = &types.ResourceNotFoundException{Message: &msg}
	case "ProvisionedThroughputExceededException":
		err = &types.ProvisionedThroughputExceededException{Message: &msg}
	case "RequestLimitExceeded":
		err = &types.RequestLimitExceeded{Message: &msg}
	case "ThrottlingException":
		err = &types.ThrottlingException{Message: &msg}
	case "InternalServerError":
		err = &types.InternalServerError{Message: &msg}
	default:
		fault := smithy.FaultClient
		if res.StatusCode >= 500 {
			fault = smithy.FaultServer
		}
		err = &smithy.GenericAPIError{Code: code, Message: msg, Fault: fault}
	}
	return &apiError{status: res.StatusCode, requestID: res.Header.Get("X-Amzn-Requestid"), err: err}
}
