package a2a

// tenanted is a request that carries a tenant. withTenant has a value
// receiver, so it works on a copy: it returns a pointer to the copy with
// the tenant set unless one was set already.
type tenanted interface{ withTenant(tenant string) any }

func orTenant(cur, tenant string) string {
	if cur != "" {
		return cur
	}
	return tenant
}

func (r SendMessageRequest) withTenant(t string) any { r.Tenant = orTenant(r.Tenant, t); return &r }
func (r GetTaskRequest) withTenant(t string) any     { r.Tenant = orTenant(r.Tenant, t); return &r }
func (r CancelTaskRequest) withTenant(t string) any  { r.Tenant = orTenant(r.Tenant, t); return &r }
func (r SubscribeToTaskRequest) withTenant(t string) any {
	r.Tenant = orTenant(r.Tenant, t)
	return &r
}
func (r ListTasksRequest) withTenant(t string) any { r.Tenant = orTenant(r.Tenant, t); return &r }
func (r TaskPushNotificationConfig) withTenant(t string) any {
	r.Tenant = orTenant(r.Tenant, t)
	return &r
}

func (r TaskPushNotificationConfigRequest) withTenant(t string) any {
	r.Tenant = orTenant(r.Tenant, t)
	return &r
}

func (r ListTaskPushNotificationConfigsRequest) withTenant(t string) any {
	r.Tenant = orTenant(r.Tenant, t)
	return &r
}

func (r GetExtendedAgentCardRequest) withTenant(t string) any {
	r.Tenant = orTenant(r.Tenant, t)
	return &r
}
