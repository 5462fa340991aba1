// Package rest is the HTTP+JSON/REST protocol binding of A2A v1.0 (§11 of
// the specification, the google.api.http routes of a2a.proto): a client
// Transport for package a2a, and the route table and error encoding the
// reference agent (package devagent) serves with.
//
// Every method maps to a route, optionally under a /{tenant} prefix:
//
//	SendMessage                       POST   /message:send
//	SendStreamingMessage              POST   /message:stream          (SSE)
//	GetTask                           GET    /tasks/{id}?historyLength=
//	ListTasks                         GET    /tasks?contextId=&status=&pageSize=&pageToken=&historyLength=&statusTimestampAfter=&includeArtifacts=
//	CancelTask                        POST   /tasks/{id}:cancel
//	SubscribeToTask                   GET    /tasks/{id}:subscribe    (SSE)
//	CreateTaskPushNotificationConfig  POST   /tasks/{taskId}/pushNotificationConfigs
//	GetTaskPushNotificationConfig     GET    /tasks/{taskId}/pushNotificationConfigs/{id}
//	ListTaskPushNotificationConfigs   GET    /tasks/{taskId}/pushNotificationConfigs?pageSize=&pageToken=
//	DeleteTaskPushNotificationConfig  DELETE /tasks/{taskId}/pushNotificationConfigs/{id}
//	GetExtendedAgentCard              GET    /extendedAgentCard
//
// Bodies are the request messages in ProtoJSON (camelCase) without the
// fields the path carries (tenant, id, taskId), as google.api.http's
// body "*" means. Errors are google.rpc.Status JSON ({"error": {code,
// status, message, details}}); ParseError maps them to the *a2a.RPCError
// the JSON-RPC binding would give: by the google.rpc.ErrorInfo reason
// (domain a2a-protocol.org) when there is one, else by HTTP status.
// 401 and 403 stay *a2a.HTTPError, which the sign-in flow handles.
package rest
