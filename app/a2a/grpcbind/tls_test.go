package grpcbind_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/a2apb"
	"aimdesk/app/a2a/grpcbind"
)

// taskServer answers GetTask when the call carries the service
// parameters and the bearer token as metadata.
type taskServer struct {
	a2apb.UnimplementedA2AServiceServer
}

func (taskServer) GetTask(ctx context.Context, r *a2apb.GetTaskRequest) (*a2apb.Task, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer tok" {
		return nil, status.Error(codes.Unauthenticated, "no token")
	}
	if v := md.Get("a2a-version"); len(v) != 1 || v[0] != "1.0" {
		return nil, status.Error(codes.FailedPrecondition, "no version")
	}
	if e := md.Get("a2a-extensions"); len(e) != 1 || e[0] != "urn:x:a,urn:x:b" {
		return nil, status.Error(codes.FailedPrecondition, "no extensions")
	}
	return &a2apb.Task{Id: r.GetId(), Status: &a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_WORKING}}, nil
}

// A TLS interface is reached over TLS (https:// URL), with the server's
// certificate checked, the sign-in's token and the service parameters as
// metadata; a client that does not trust the certificate fails.
func TestTLS(t *testing.T) {
	// httptest's certificate is for 127.0.0.1 and example.com.
	ts := httptest.NewUnstartedServer(nil)
	ts.StartTLS()
	ts.Close()
	cert := ts.TLS
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: cert.Certificates, MinVersion: tls.VersionTLS12})))
	a2apb.RegisterA2AServiceServer(s, taskServer{})
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	pool := x509.NewCertPool()
	leaf, err := x509.ParseCertificate(cert.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool.AddCert(leaf)
	url := "https://" + ln.Addr().String()
	iface := a2a.AgentInterface{URL: url, ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.Version10}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	tr, err := grpcbind.New(url, grpcbind.Options{TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	creds := func(context.Context, string) (http.Header, error) {
		return http.Header{"Authorization": {"Bearer tok"}}, nil
	}
	c := &a2a.Client{Interface: iface, Transport: tr, Credentials: creds, Extensions: []string{"urn:x:a", "urn:x:b"}}
	defer c.Close()
	task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t1"})
	if err != nil || task.ID != "t1" || task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("GetTask over TLS = %+v, %v", task, err)
	}

	untrusting, err := grpcbind.New(url, grpcbind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c2 := &a2a.Client{Interface: iface, Transport: untrusting, Credentials: creds, Extensions: c.Extensions, IdleTimeout: 5 * time.Second}
	defer c2.Close()
	if _, err := c2.GetTask(ctx, &a2a.GetTaskRequest{ID: "t1"}); err == nil {
		t.Fatal("a certificate the system does not trust was accepted")
	}
}
