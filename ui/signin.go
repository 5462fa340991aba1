package ui

// Sign-in and trust in the agent view (docs/security.md): whether the
// agent's card is signed and verified, whether the user is signed in and
// with what, and the dialogs that sign in, sign out, confirm moved sign-in
// endpoints and pin the keys a card must be signed with. The core does the
// work (app/signin.go); this file shows its state and asks it.
//
// Secrets typed here go from a password entry straight into an
// auth.SignInRequest; no text shown, logged or kept by the UI holds them.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/auth"
	"aimdesk/app/trust"
)

// errCredentialRefused says the agent answered HTTP 401 to the first call
// made with a key or token the user typed in.
var errCredentialRefused = errors.New("the agent refused the key or token (HTTP 401)")

// signinSection is the agent view's "Trust and sign-in" section and the
// header's "Sign in…" / "Sign out…" button. It lives as long as the
// window: agentDetails puts its object back at every rebuild and calls
// show on every agent event. Its fields are used on the Fyne goroutine
// only; core calls run in goroutines and come back through Window.post.
type signinSection struct {
	w      *Window
	box    *fyne.Container
	button *widget.Button

	agent    app.Agent      // the agent shown; ID "" when none
	state    *app.AuthState // its state as last read from the core; nil until read
	stateErr error          // why the state could not be read
	trustErr error          // why the card's signature could not be checked
	fetching bool           // a read of the state runs
	again    bool           // read once more when it ends

	// challenged holds, per agent, why it needs sign-in: the agent
	// answered HTTP 401 to the check of a key or token just typed in.
	// (401s of other calls come from the core: AuthState.Refused.)
	challenged map[string]string
	// permShown is, per agent, the permission request already shown.
	permShown map[string]string
	// dlg is the open sign-in dialog, if any.
	dlg *signInDialog

	// confirmEndpoints re-pins moved sign-in endpoints: Core.ConfirmEndpoints
	// unless a test replaces it.
	confirmEndpoints func(ctx context.Context, agentID string) error
}

func newSigninSection(w *Window) *signinSection {
	s := &signinSection{w: w, box: container.NewVBox(), challenged: map[string]string{}, permShown: map[string]string{}}
	s.button = widget.NewButtonWithIcon("Sign in…", theme.LoginIcon(), s.onButton)
	s.button.Hide()
	s.confirmEndpoints = func(ctx context.Context, agentID string) error { return w.core.ConfirmEndpoints(ctx, agentID) }
	return s
}

// Object is the section's content, placed under its heading.
func (s *signinSection) Object() fyne.CanvasObject { return s.box }

// Button is "Sign in…" or "Sign out…" for the agent's header row; hidden
// when the card offers no sign-in and none is stored.
func (s *signinSection) Button() fyne.CanvasObject { return s.button }

// show follows the agent view to a (nil: none) and reads its sign-in
// state again.
func (s *signinSection) show(a *app.Agent) {
	if a == nil {
		s.agent, s.state, s.stateErr, s.trustErr = app.Agent{}, nil, nil, nil
		s.render(false)
		return
	}
	if a.ID != s.agent.ID {
		s.state, s.stateErr, s.trustErr = nil, nil, nil
	}
	s.agent = *a
	s.render(false)
	s.fetch()
}

// fetch reads the agent's sign-in state in the background, and checks its
// card's signature when the core has not yet. Reads do not overlap: one
// asked for while another runs follows it.
func (s *signinSection) fetch() {
	if s.agent.ID == "" {
		return
	}
	if s.fetching {
		s.again = true
		return
	}
	s.fetching = true
	id, hasCard := s.agent.ID, s.agent.Card != nil
	core, ctx := s.w.core, s.w.ctx
	go func() {
		// AuthState may wait for the OS keyring to unlock: never on the
		// Fyne goroutine.
		st, err := core.AuthState(id)
		var terr error
		if err == nil && hasCard && st.Card.Status == "" {
			st.Card, terr = core.CheckAgentTrust(ctx, id)
		}
		s.w.post(func() {
			s.fetching = false
			if id == s.agent.ID && !errors.Is(err, app.ErrUnknownAgent) {
				s.setState(st, err, terr)
			}
			if s.again {
				s.again = false
				s.fetch()
			}
		})
	}()
}

// setState takes a state read from the core.
func (s *signinSection) setState(st app.AuthState, err, terr error) {
	s.stateErr, s.trustErr = err, terr
	if err != nil {
		s.state = nil
	} else {
		s.state = &st
		if st.SignedIn {
			delete(s.challenged, s.agent.ID)
		}
	}
	s.render(true)
	if err != nil {
		return
	}
	if s.dlg != nil && s.dlg.agent.ID == s.agent.ID {
		s.dlg.update(st)
	}
	if p := st.Permission; p != nil {
		key := permissionKey(p)
		if s.permShown[s.agent.ID] != key {
			s.permShown[s.agent.ID] = key
			s.showPermission(*p)
		}
	}
}

// options are the ways the agent offers to sign in: from the core's state
// when read, else from the card.
func (s *signinSection) options() []auth.Option {
	if s.state != nil {
		return s.state.Options
	}
	return auth.Options(s.agent.Card)
}

// render lays the section out again; relayout also lays out the agent
// view around it (its height may change).
func (s *signinSection) render(relayout bool) {
	s.box.Objects = s.objects()
	s.box.Refresh()
	s.updateButton()
	if d := s.w.details; relayout && d != nil {
		d.box.Refresh()
	}
}

func (s *signinSection) objects() []fyne.CanvasObject {
	if s.agent.ID == "" || s.agent.Card == nil {
		return nil
	}
	out := s.trustObjects()
	out = append(out, s.stateObjects()...)
	return append(out, s.optionObjects()...)
}

// updateButton makes the header button "Sign in…" or "Sign out…".
func (s *signinSection) updateButton() {
	b := s.button
	switch {
	case s.state != nil && s.state.SignedIn:
		b.SetText("Sign out…")
		b.SetIcon(theme.LogoutIcon())
		b.Importance = widget.MediumImportance
		b.Show()
	case s.agent.Card != nil && len(s.options()) > 0 && s.stateErr == nil:
		b.SetText("Sign in…")
		b.SetIcon(theme.LoginIcon())
		b.Importance = widget.MediumImportance
		if s.needsSignIn() != "" {
			b.Importance = widget.HighImportance
		}
		b.Show()
	default:
		b.Hide()
	}
	b.Refresh()
}

func (s *signinSection) onButton() {
	if s.state != nil && s.state.SignedIn {
		s.showSignOut()
		return
	}
	s.showSignIn()
}

// needsSignIn says why the agent needs sign-in, or "" when it does not
// (or is signed in).
func (s *signinSection) needsSignIn() string {
	if s.state != nil && s.state.SignedIn {
		return ""
	}
	if why := s.challenged[s.agent.ID]; why != "" {
		return why
	}
	if s.state != nil && s.state.Refused {
		return "the agent answered HTTP 401: it does not take calls without sign-in."
	}
	for _, o := range s.options() {
		if o.Required {
			return "the card says calls need it."
		}
	}
	return ""
}

// cardTrust is the card's signature check: the core's when it checked,
// else what the card alone tells (no signatures: unsigned).
func (s *signinSection) cardTrust() (trust.Result, bool) {
	if s.state != nil && s.state.Card.Status != "" {
		return s.state.Card, true
	}
	if s.state == nil && s.agent.Card != nil && len(s.agent.Card.Signatures) == 0 {
		return trust.Result{Status: trust.StatusUnsigned}, true
	}
	return trust.Result{}, false
}

// trustObjects show whether the card is signed, by whom, or why its
// signature is invalid, with "Pin keys…" for signed cards.
func (s *signinSection) trustObjects() []fyne.CanvasObject {
	res, known := s.cardTrust()
	var out []fyne.CanvasObject
	switch {
	case s.trustErr != nil:
		out = append(out, signinLine("Card: the signature could not be checked: "+signinText(s.trustErr), widget.WarningImportance))
	case !known && s.stateErr != nil:
		return []fyne.CanvasObject{lowLabel("Card: the signature could not be checked (sign-in and trust are not available).")}
	case !known:
		return []fyne.CanvasObject{lowLabel("Card: signed; checking the signature…")}
	default:
		out = trustResultObjects(res, s.agent)
		if res.Status == trust.StatusUnsigned {
			return out // nothing to check, no keys to pin
		}
	}
	pin := widget.NewButtonWithIcon("Pin keys…", theme.ContentPasteIcon(), s.showPinKeys)
	again := widget.NewButtonWithIcon("Check again", theme.ViewRefreshIcon(), s.checkTrust)
	return append(out, container.NewHBox(pin, again))
}

// trustResultObjects are the lines for a signature check: green when
// verified, neutral when unsigned, red with an explanation when invalid.
func trustResultObjects(res trust.Result, a app.Agent) []fyne.CanvasObject {
	switch res.Status {
	case trust.StatusVerified:
		return []fyne.CanvasObject{
			signinLine(fmt.Sprintf("Card: Signed and verified (key “%s”, %s)", signinClip(res.KeyID, 60), res.Algorithm), widget.SuccessImportance),
			lowLabel("The key came from " + keySourceText(res.KeySource) + ". A verified card was written by whoever holds that key; it does not say the agent is safe."),
		}
	case trust.StatusUnsigned:
		where := a.CardURL
		if u, err := url.Parse(a.CardURL); err == nil && u.Host != "" {
			where = displayHost(u)
		}
		return []fyne.CanvasObject{
			signinLine("Card: Not signed", widget.MediumImportance),
			lowLabel("Signed: no, the card carries no signature. Nothing proves who wrote it beyond the address it came from (" + where + ")."),
		}
	}
	return []fyne.CanvasObject{
		signinLine("Card: Signature INVALID: "+res.Reason(), widget.DangerImportance),
		signinLine(invalidExplanation(res.Err)+" Treat this agent as untrusted: do not sign in to it or send it anything sensitive until you know why.", widget.DangerImportance),
	}
}

// keySourceText says where a verifying key came from.
func keySourceText(src string) string {
	if src == "pinned" {
		return "the keys you pinned for this agent"
	}
	if u, err := url.Parse(src); err == nil && u.Host != "" {
		return "the agent's own site (" + displayHost(u) + ")"
	}
	return "the agent's own site"
}

// invalidExplanation says in words what an invalid signature means.
func invalidExplanation(err error) string {
	switch {
	case errors.Is(err, trust.ErrBadSignature):
		return "The card does not match its signature: it was changed after it was signed, or someone else signed it."
	case errors.Is(err, trust.ErrUnknownKey):
		return "The key that signed the card is not among the keys aimdesk has for this agent (the ones you pinned, or the ones its site publishes)."
	case errors.Is(err, trust.ErrNoKey):
		return "The card is signed but says nowhere where its keys are. If the agent's owner gave you its public keys, pin them with “Pin keys…”."
	case errors.Is(err, trust.ErrForeignJKU):
		return "The signature points to keys on another site than the card's. aimdesk does not fetch keys from elsewhere, since a hostile agent could point to keys it holds. If the owner publishes its keys elsewhere, get them yourself and pin them."
	case errors.Is(err, trust.ErrJWKS):
		return "The agent's key set could not be read, so the signature cannot be checked."
	case errors.Is(err, trust.ErrAlgorithm):
		return "The card is signed with a method aimdesk does not accept as safe."
	}
	return "The signature cannot be checked."
}

// checkTrust checks the card's signature again.
func (s *signinSection) checkTrust() {
	id := s.agent.ID
	go func() {
		res, err := s.w.core.CheckAgentTrust(s.w.ctx, id)
		s.w.post(func() {
			if id != s.agent.ID {
				return
			}
			s.trustErr = err
			if err == nil && s.state != nil {
				s.state.Card = res
			}
			s.render(true)
			if s.state == nil {
				s.fetch() // the core remembers the result
			}
		})
	}()
}

// stateObjects show whether the user is signed in, with what, what the
// sign-in allows, where its secret is kept, and what waits for the user
// (a device code, a permission, moved endpoints).
func (s *signinSection) stateObjects() []fyne.CanvasObject {
	if s.stateErr != nil {
		return []fyne.CanvasObject{signinLine("Sign-in is not available: "+signinText(s.stateErr), widget.DangerImportance)}
	}
	st, opts, card := s.state, s.options(), s.agent.Card
	var out []fyne.CanvasObject
	switch {
	case st != nil && st.SignedIn:
		out = append(out, signedInObjects(st.Session, card)...)
	case len(opts) == 0 && len(card.SecuritySchemes) == 0:
		out = append(out, lowLabel("Sign-in: none. The card declares no sign-in: requests carry no credentials."))
	case len(opts) == 0:
		out = append(out, lowLabel("Sign-in: none. The card declares no sign-in aimdesk can use: requests carry no credentials."))
	case s.needsSignIn() != "":
		out = append(out, signinLine("Sign-in: Needs sign-in — "+s.needsSignIn(), widget.WarningImportance))
	default:
		out = append(out, wrapLabel("Sign-in: Not signed in. The card offers sign-in but does not require it."))
	}
	if st == nil {
		return out
	}
	if st.Store != "" && (len(opts) > 0 || st.SignedIn) {
		out = append(out, lowLabel("Sign-in secrets are kept in "+st.Store+"."))
	}
	return append(out, s.pendingObjects(st)...)
}

// pendingObjects show what waits for the user: a device code to enter, a
// permission asked for, sign-in endpoints that moved.
func (s *signinSection) pendingObjects(st *app.AuthState) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	if dc := st.DeviceCode; dc != nil && s.dlg == nil {
		out = append(out, signinLine(fmt.Sprintf("Waiting for the code %s to be entered at %s.", dc.UserCode, signinURLHost(dc.VerificationURI)), widget.WarningImportance))
	}
	if p := st.Permission; p != nil {
		out = append(out, signinLine("Permission asked for: "+permissionsText(p.Missing), widget.WarningImportance))
	}
	if ce := st.EndpointChange; ce != nil {
		out = append(out,
			signinLine("The sign-in endpoints changed since you first signed in. aimdesk keeps using the old ones until you confirm the new ones.", widget.DangerImportance),
			widget.NewButtonWithIcon("Review the change…", theme.WarningIcon(), func() { s.showEndpointChange(ce) }))
	}
	return out
}

// signedInObjects describe a stored sign-in.
func signedInObjects(ses auth.State, card *a2a.AgentCard) []fyne.CanvasObject {
	how := signinOptionWords(auth.Option{Scheme: ses.Scheme, Flow: ses.Flow, Kind: schemeKind(card, ses.Scheme)}, card)
	out := []fyne.CanvasObject{signinLine(fmt.Sprintf("Sign-in: Signed in — %s (scheme “%s”)", how, signinClip(ses.Scheme, 60)), widget.SuccessImportance)}
	switch {
	case ses.Flow == auth.FlowAPIKey || ses.Flow == auth.FlowBearer:
		out = append(out, lowLabel("Permissions: a typed-in key or token carries none aimdesk can see; the agent decides what it allows."))
	case len(ses.Granted) == 0:
		out = append(out, lowLabel("Permissions granted: none named by the identity provider."))
	default:
		out = append(out, wrapLabel("Permissions granted: "+permissionsText(ses.Granted)))
	}
	if !ses.Expiry.IsZero() {
		line := "The access token is valid until " + shortTime(ses.Expiry)
		if ses.Refreshes {
			line += "; aimdesk renews it by itself."
		} else {
			line += "; sign in again after that."
		}
		out = append(out, lowLabel(line))
	}
	if ses.Endpoints.Agent != "" {
		out = append(out, lowLabel("The credential is sent only to "+signinOriginText(ses.Endpoints.Agent)+"."))
	}
	return out
}

// optionObjects list the ways the card offers to sign in, in words, and
// the schemes aimdesk cannot use.
func (s *signinSection) optionObjects() []fyne.CanvasObject {
	opts, card := s.options(), s.agent.Card
	if len(card.SecuritySchemes) == 0 {
		return nil
	}
	out := []fyne.CanvasObject{widget.NewLabelWithStyle("Ways to sign in", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	labels := signinOptionLabels(opts, card)
	usable := map[string]bool{}
	for i, o := range opts {
		usable[o.Scheme] = true
		line := "• " + labels[i]
		if o.Required {
			line += " — required by the card"
		}
		out = append(out, wrapLabel(line))
		if o.Description != "" {
			out = append(out, lowLabel("The card says: "+o.Description))
		}
	}
	names := make([]string, 0, len(card.SecuritySchemes))
	for n := range card.SecuritySchemes {
		if !usable[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, lowLabel(fmt.Sprintf("• %s (scheme “%s”): aimdesk cannot use it", card.SecuritySchemes[n].Kind(), signinClip(n, 60))))
	}
	return out
}

// signinLine is a wrapped label of an importance (its colour).
func signinLine(text string, imp widget.Importance) *widget.Label {
	l := wrapLabel(text)
	l.Importance = imp
	return l
}

func schemeKind(card *a2a.AgentCard, scheme string) string {
	if card == nil {
		return ""
	}
	if s, ok := card.SecuritySchemes[scheme]; ok {
		return s.Kind()
	}
	return ""
}

// signinOptionWords says a sign-in option in words: "Sign in with your
// browser (OAuth 2.0, PKCE)", "API key in header X-API-Key", …
func signinOptionWords(o auth.Option, card *a2a.AgentCard) string {
	switch o.Flow {
	case auth.FlowAuthorizationCode:
		kind := "OAuth 2.0"
		if o.Kind == "OpenID Connect" {
			kind = o.Kind
		}
		return "Sign in with your browser (" + kind + ", PKCE)"
	case auth.FlowDeviceCode:
		return "Sign in on another device (device code)"
	case auth.FlowClientCredentials:
		return "Client credentials"
	case auth.FlowBearer:
		return "Bearer token"
	case auth.FlowAPIKey:
		if card != nil {
			if k := card.SecuritySchemes[o.Scheme].APIKey; k != nil {
				where := map[string]string{"header": "header", "query": "query parameter", "cookie": "cookie"}[strings.ToLower(k.Location)]
				if where != "" {
					return "API key in " + where + " " + signinClip(k.Name, 60)
				}
			}
		}
		return "API key"
	}
	return o.Flow.Label()
}

// signinOptionLabels are the options' words, made unique (a radio group
// needs that) with the scheme's name where two read the same.
func signinOptionLabels(opts []auth.Option, card *a2a.AgentCard) []string {
	labels := make([]string, len(opts))
	count := map[string]int{}
	for i, o := range opts {
		labels[i] = signinOptionWords(o, card)
		count[labels[i]]++
	}
	seen := map[string]bool{}
	for i, o := range opts {
		if count[labels[i]] > 1 {
			labels[i] += " — scheme “" + signinClip(o.Scheme, 40) + "”"
		}
		for seen[labels[i]] { // two schemes whose names clip alike
			labels[i] += " ·"
		}
		seen[labels[i]] = true
	}
	return labels
}

// permissionsText lists permissions with why each is needed.
func permissionsText(ps []auth.Permission) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

func permissionKey(p *auth.PermissionRequest) string {
	return p.Method + "|" + permissionsText(p.Missing) + "|" + strings.Join(p.Granted, " ")
}

// signinClip keeps agent-supplied text printable and short.
func signinClip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	return truncateRunes(s, n)
}

// signinURLHost is the host (and port) of raw for people.
func signinURLHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return displayHost(u)
	}
	return signinClip(raw, 80)
}

// signinOriginText is an origin (scheme://host:port) for people: without
// the scheme's default port.
func signinOriginText(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return origin
	}
	if p := u.Port(); (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	return u.String()
}

// signinText is an error in words, without the packages' prefixes.
func signinText(err error) string {
	s := err.Error()
	for _, p := range []string{"app: ", "auth: ", "a2a: ", "trust: ", "store: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// secretWords names what the user types for an option.
func secretWords(o auth.Option) string {
	switch o.Flow {
	case auth.FlowAPIKey:
		return "API key"
	case auth.FlowBearer:
		return "token"
	}
	return "client secret"
}

// signinErrorText explains why signing in with o failed, in sentences.
func signinErrorText(err error, o auth.Option) string {
	var pe *auth.ProviderError
	switch {
	case errors.Is(err, errCredentialRefused):
		return fmt.Sprintf("The agent refused this %s (HTTP 401). Check that you copied all of it and that it is meant for this agent. aimdesk did not keep it.", secretWords(o))
	case errors.Is(err, auth.ErrSecretRequired):
		if detail := strings.TrimPrefix(err.Error(), auth.ErrSecretRequired.Error()+": "); detail != err.Error() {
			return fmt.Sprintf("This %s cannot be sent the way the card says: %s. Check that you copied only the %s.", secretWords(o), detail, secretWords(o))
		}
		return fmt.Sprintf("Type in the %s first.", secretWords(o))
	case errors.Is(err, auth.ErrAccessDenied):
		return "The sign-in was refused, by you or by the identity provider. Nothing was stored."
	case errors.Is(err, auth.ErrSignInTimeout):
		return "The sign-in was not finished in time and was stopped. Try again when you are ready."
	case errors.Is(err, auth.ErrNoBrowser):
		return "aimdesk could not open a browser on this computer. Choose “Sign in on another device (device code)” if the agent offers it."
	case errors.Is(err, auth.ErrInsecureEndpoint):
		return "The identity provider's address does not use https, so aimdesk will not send credentials there. " + signinText(err)
	case errors.Is(err, auth.ErrBadMetadata):
		return "The identity provider's settings cannot be used. " + signinText(err)
	case errors.As(err, &pe):
		return providerErrorText(pe)
	case errors.Is(err, auth.ErrEndpointChanged):
		return "The sign-in endpoints changed since you first signed in. Review the change before signing in again."
	case errors.Is(err, auth.ErrUnsupportedFlow), errors.Is(err, auth.ErrUnknownScheme), errors.Is(err, auth.ErrNoScheme):
		return "aimdesk cannot use this way of signing in. " + signinText(err)
	case errors.Is(err, auth.ErrSecretCorrupt):
		return "The stored sign-in cannot be read (its key file may have been removed). Sign in again."
	case errors.Is(err, app.ErrNotConnected):
		return "aimdesk has not read this agent's card yet. Refresh the agent, then try again."
	case errors.Is(err, context.DeadlineExceeded):
		return "The identity provider did not answer in time. Try again later."
	}
	return "Could not sign in. " + signinText(err)
}

// providerErrorText explains an identity provider's refusal.
func providerErrorText(pe *auth.ProviderError) string {
	var s string
	switch pe.Code {
	case "invalid_client", "unauthorized_client":
		s = "The identity provider does not accept this client ID or client secret."
	case "invalid_grant":
		s = "The identity provider refused the sign-in (the code or grant is not valid any more). Try again."
	case "invalid_scope":
		s = "The identity provider does not offer the permissions aimdesk asked for."
	case "expired_token":
		s = "The code expired before it was entered. Try again."
	case "access_denied":
		s = "The sign-in was refused, by you or by the identity provider."
	default:
		s = "The identity provider refused the sign-in"
		if pe.Code != "" {
			s += " (" + signinClip(pe.Code, 40) + ")"
		} else if pe.Status != 0 {
			s += fmt.Sprintf(" (HTTP %d)", pe.Status)
		}
		s += "."
	}
	if pe.Description != "" {
		s += " It says: “" + signinClip(pe.Description, 300) + "”"
	}
	return s
}

// signInDialog is "Sign in to …": the ways the card offers, the fields
// the chosen one needs, progress, a device code and errors.
type signInDialog struct {
	s     *signinSection
	agent app.Agent
	opts  []auth.Option
	// labels are the options in words, in opts' order.
	labels []string

	options       *widget.RadioGroup
	about         *widget.Label
	said          *widget.Label // the card's description of the option
	clientIDLabel *widget.Label
	clientID      *escEntry
	secretLabel   *widget.Label
	secret        *escEntry
	fields        *fyne.Container
	scopes        *widget.Label
	where         *widget.Label
	progress      *widget.ProgressBarInfinite
	status        *widget.Label
	errLabel      *widget.Label
	signInBtn     *widget.Button
	cancelBtn     *widget.Button

	device      *fyne.Container
	deviceCode  *widget.Label
	deviceHost  *widget.Label
	deviceWarn  *widget.Label
	deviceURL   *widget.Label
	deviceOpen  *widget.Button
	deviceUntil *widget.Label
	code        string   // the device code shown
	verifyURL   *url.URL // where it is entered

	content *fyne.Container
	dlg     *dialog.CustomDialog
	cancel  context.CancelFunc // ends the sign-in that runs
	current int                // index in opts of the chosen option
}

// showSignIn opens the sign-in dialog for the agent shown.
func (s *signinSection) showSignIn() {
	opts := s.options()
	if len(opts) == 0 || s.dlg != nil {
		return
	}
	store := ""
	if s.state != nil {
		store = s.state.Store
	}
	d := newSignInDialog(s, s.agent, opts, store)
	d.dlg = dialog.NewCustomWithoutButtons("Sign in to "+agentTitle(s.agent), container.NewVScroll(d.content), s.w.Window)
	d.dlg.SetButtons([]fyne.CanvasObject{d.cancelBtn, d.signInBtn})
	d.dlg.Resize(fyne.NewSize(540, 600))
	s.dlg = d
	s.w.showDialog(d.dlg)
	d.dlg.SetOnClosed(func() {
		if d.cancel != nil {
			d.cancel()
			d.cancel = nil
		}
		d.secret.SetText("")
		if s.dlg == d {
			s.dlg = nil
		}
		s.render(true)
	})
	if opts[0].NeedsSecret {
		s.w.Canvas().Focus(d.secret)
	}
}

// newSignInDialog builds the dialog's content (not shown).
func newSignInDialog(s *signinSection, a app.Agent, opts []auth.Option, store string) *signInDialog {
	d := &signInDialog{s: s, agent: a, opts: opts, labels: signinOptionLabels(opts, a.Card)}
	d.options = widget.NewRadioGroup(d.labels, d.choose)
	d.options.Required = true
	d.about, d.said = wrapLabel(""), lowLabel("")
	d.clientIDLabel = widget.NewLabel("Client ID (optional)")
	d.clientID = newEscEntry(s.w)
	d.clientID.SetPlaceHolder(auth.DefaultClientID)
	d.secretLabel = widget.NewLabel("")
	d.secret = newEscEntry(s.w)
	d.secret.Password = true
	d.secret.OnSubmitted = func(string) { d.submit() }
	d.fields = container.NewVBox()
	d.scopes = lowLabel("aimdesk asks for the permissions a chat needs (send messages, read and follow tasks). It asks for more only when you do something that needs them, and tells you which and why first.")
	origin := signinOriginText(auth.Origin(a.Interface.URL))
	if origin == "" {
		origin = "the agent's own address"
	}
	if store == "" {
		store = "the system keyring, or an encrypted file when there is none"
	}
	d.where = lowLabel("aimdesk keeps the credential in " + store + " and sends it only to " + origin + ".")
	d.progress = widget.NewProgressBarInfinite()
	d.progress.Stop()
	d.progress.Hide()
	d.status = wrapLabel("")
	d.status.Hide()
	d.errLabel = signinLine("", widget.DangerImportance)
	d.errLabel.Hide()
	d.buildDevice()
	d.signInBtn = widget.NewButtonWithIcon("Sign in", theme.LoginIcon(), d.submit)
	d.signInBtn.Importance = widget.HighImportance
	d.cancelBtn = widget.NewButton("Cancel", func() {
		if d.dlg != nil {
			d.dlg.Hide()
		}
	})
	d.content = container.NewVBox(wrapLabel("Choose how to sign in:"), d.options, d.about, d.said, d.fields,
		d.scopes, d.where, d.progress, d.status, d.device, d.errLabel)
	d.options.SetSelected(d.labels[0])
	return d
}

func (d *signInDialog) buildDevice() {
	d.deviceCode = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.deviceCode.SizeName = theme.SizeNameHeadingText
	d.deviceCode.Selectable = true
	d.deviceHost = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.deviceHost.Wrapping = fyne.TextWrapBreak
	d.deviceURL = lowLabel("")
	d.deviceURL.Wrapping = fyne.TextWrapBreak
	d.deviceWarn = signinLine("", widget.DangerImportance)
	d.deviceWarn.Hide()
	d.deviceUntil = lowLabel("")
	copyCode := widget.NewButtonWithIcon("Copy code", theme.ContentCopyIcon(), func() { d.s.w.env.app.Clipboard().SetContent(d.code) })
	copyURL := widget.NewButtonWithIcon("Copy address", theme.ContentCopyIcon(), func() {
		if d.verifyURL != nil {
			d.s.w.env.app.Clipboard().SetContent(d.verifyURL.String())
		}
	})
	d.deviceOpen = widget.NewButtonWithIcon("Open in your browser", theme.ComputerIcon(), d.openVerification)
	d.device = container.NewVBox(
		wrapLabel("Enter this code:"), container.NewHBox(d.deviceCode, copyCode),
		wrapLabel("on this page, from any device with a browser:"), d.deviceHost, d.deviceWarn, d.deviceURL,
		container.NewHBox(copyURL, d.deviceOpen), d.deviceUntil)
	d.device.Hide()
}

// choose shows the fields the option labelled label needs.
func (d *signInDialog) choose(label string) {
	i := 0
	for j, l := range d.labels {
		if l == label {
			i = j
		}
	}
	if i != d.current {
		d.secret.SetText("") // a key typed for one option is not another's secret
	}
	d.current = i
	o := d.opts[i]
	d.fields.Objects = nil
	d.scopes.Show()
	switch o.Flow {
	case auth.FlowAuthorizationCode:
		d.about.SetText("Your browser opens the identity provider's sign-in page. When it says you can close the window, come back here.")
		d.secretLabel.SetText("Client secret (optional: only if the provider gave you one)")
		d.fields.Objects = []fyne.CanvasObject{d.clientIDLabel, d.clientID, d.secretLabel, d.secret}
	case auth.FlowDeviceCode:
		d.about.SetText("You get a short code to enter on a page of the identity provider, from any device with a browser (your phone, say).")
		d.fields.Objects = []fyne.CanvasObject{d.clientIDLabel, d.clientID}
	case auth.FlowClientCredentials:
		d.about.SetText("For a service account: aimdesk signs in as the client itself, with its ID and secret.")
		d.secretLabel.SetText("Client secret")
		d.fields.Objects = []fyne.CanvasObject{d.clientIDLabel, d.clientID, d.secretLabel, d.secret}
	case auth.FlowAPIKey:
		d.about.SetText("Paste the API key you got for this agent. aimdesk sends it as the card says: " + signinOptionWords(o, d.agent.Card) + ".")
		d.secretLabel.SetText("API key")
		d.fields.Objects = []fyne.CanvasObject{d.secretLabel, d.secret}
		d.scopes.Hide()
	case auth.FlowBearer:
		d.about.SetText("Paste the access token you got for this agent. aimdesk sends it in the Authorization header.")
		d.secretLabel.SetText("Bearer token")
		d.fields.Objects = []fyne.CanvasObject{d.secretLabel, d.secret}
		d.scopes.Hide()
	}
	d.secret.SetPlaceHolder("")
	said := ""
	if o.Required {
		said = "The card says calls need this sign-in."
	}
	if o.Description != "" {
		said = strings.TrimSpace(said + " The card describes it as: “" + o.Description + "”")
	}
	d.said.SetText(said)
	d.said.Hidden = said == ""
	d.errLabel.Hide()
	d.fields.Refresh()
	d.content.Refresh()
}

// submit starts the sign-in with the chosen option.
func (d *signInDialog) submit() {
	if d.cancel != nil {
		return // one runs
	}
	o := d.opts[d.current]
	req := auth.SignInRequest{Scheme: o.Scheme, Flow: o.Flow}
	switch o.Flow {
	case auth.FlowAPIKey, auth.FlowBearer:
		req.Secret = d.secret.Text
	case auth.FlowClientCredentials, auth.FlowAuthorizationCode:
		req.ClientID, req.ClientSecret = strings.TrimSpace(d.clientID.Text), d.secret.Text
	case auth.FlowDeviceCode:
		req.ClientID = strings.TrimSpace(d.clientID.Text)
	}
	if o.NeedsSecret && strings.TrimSpace(d.secret.Text) == "" {
		d.fail(fmt.Sprintf("Type in the %s first.", secretWords(o)))
		d.s.w.Canvas().Focus(d.secret)
		return
	}
	ctx, cancel := context.WithCancel(d.s.w.ctx)
	d.cancel = cancel
	d.busy(o)
	core, id, w := d.s.w.core, d.agent.ID, d.s.w
	go func() {
		err := core.SignIn(ctx, id, req)
		if err == nil && (o.Flow == auth.FlowAPIKey || o.Flow == auth.FlowBearer) {
			err = checkStaticCredential(ctx, core, id)
			if errors.Is(err, errCredentialRefused) {
				// A key the agent refuses is of no use: do not keep it.
				if _, serr := core.SignOut(w.ctx, id); serr != nil {
					err = errors.Join(err, serr)
				}
			}
		}
		cancel()
		w.post(func() { d.done(o, err) })
	}()
}

// checkStaticCredential makes one small call (ListTasks, one task) with a
// typed-in key or token, since nobody else checks it: the agent answers
// HTTP 401 when it refuses it. Any other answer, even an error, shows the
// credential got through.
func checkStaticCredential(ctx context.Context, core *app.Core, agentID string) error {
	one := 1
	_, err := core.ListTasks(ctx, agentID, a2a.ListTasksRequest{PageSize: &one})
	var he *a2a.HTTPError
	if errors.As(err, &he) && he.StatusCode == 401 {
		return errCredentialRefused
	}
	return nil
}

// busy shows progress for option o.
func (d *signInDialog) busy(o auth.Option) {
	d.errLabel.Hide()
	d.options.Disable()
	d.clientID.Disable()
	d.secret.Disable()
	d.signInBtn.Disable()
	d.progress.Show()
	d.progress.Start()
	switch o.Flow {
	case auth.FlowAuthorizationCode:
		d.status.SetText("Waiting for you to finish signing in in your browser (at most 5 minutes)… If no browser opened, cancel and choose “Sign in on another device”.")
	case auth.FlowDeviceCode:
		d.status.SetText("Asking the identity provider for a code…")
	case auth.FlowClientCredentials:
		d.status.SetText("Asking the identity provider for a token…")
	default:
		d.status.SetText(fmt.Sprintf("Checking the %s with the agent…", secretWords(o)))
	}
	d.status.Show()
	d.content.Refresh()
}

// idle ends the progress.
func (d *signInDialog) idle() {
	d.cancel = nil
	d.options.Enable()
	d.clientID.Enable()
	d.secret.Enable()
	d.signInBtn.Enable()
	d.progress.Stop()
	d.progress.Hide()
	d.status.Hide()
	d.device.Hide()
	d.code, d.verifyURL = "", nil
}

func (d *signInDialog) fail(text string) {
	d.errLabel.SetText(text)
	d.errLabel.Show()
	d.content.Refresh()
}

// done takes the end of a sign-in.
func (d *signInDialog) done(o auth.Option, err error) {
	d.idle()
	s := d.s
	switch {
	case err == nil:
		delete(s.challenged, d.agent.ID)
		d.secret.SetText("")
		if d.dlg != nil {
			d.dlg.Hide()
		}
	case errors.Is(err, context.Canceled):
		// The dialog was closed.
	default:
		if errors.Is(err, errCredentialRefused) {
			s.challenged[d.agent.ID] = "the agent answered HTTP 401 to the " + secretWords(o) + " you typed in."
		}
		d.fail(signinErrorText(err, o))
		var ce *auth.EndpointChangedError
		if errors.As(err, &ce) {
			s.showEndpointChange(ce)
		}
	}
	d.content.Refresh()
	if d.agent.ID == s.agent.ID {
		s.fetch()
	}
}

// update shows what the core reports while the sign-in runs: the device
// code to enter.
func (d *signInDialog) update(st app.AuthState) {
	dc := st.DeviceCode
	if dc == nil || d.cancel == nil {
		if !d.device.Hidden {
			d.device.Hide()
			d.content.Refresh()
		}
		return
	}
	d.showDeviceCode(*dc)
}

// showDeviceCode shows the code large, the page where it goes (its host
// first), and copy buttons; the page opens only when the user clicks.
func (d *signInDialog) showDeviceCode(dc auth.DeviceCode) {
	u, err := url.Parse(dc.VerificationURI)
	if err != nil || safeLinkURL(u) == nil {
		d.fail("The identity provider gave a page address aimdesk will not open: " + signinClip(dc.VerificationURI, 200))
		return
	}
	open := safeLinkURL(u)
	if c, err := url.Parse(dc.VerificationURIComplete); err == nil && safeLinkURL(c) != nil && strings.EqualFold(c.Host, u.Host) {
		open = safeLinkURL(c) // the code filled in, same site
	}
	d.code, d.verifyURL = dc.UserCode, safeLinkURL(u)
	d.deviceCode.SetText(dc.UserCode)
	d.deviceHost.SetText(displayHost(u))
	// The page's host is the identity provider's word: when it is not the
	// token endpoint's host, say so (a hostile provider entry in a card
	// could send the user to a look-alike page to type the code).
	if dc.ForeignVerification() {
		d.deviceWarn.SetText("Careful: " + displayHost(u) + " is not the identity provider's own host (" + signinClip(dc.ProviderHost, 100) + "). Enter the code only if you know this page belongs to your sign-in.")
		d.deviceWarn.Show()
	} else {
		d.deviceWarn.SetText("")
		d.deviceWarn.Hide()
	}
	d.deviceURL.SetText(truncateRunes(u.String(), 200))
	d.deviceOpen.SetText("Open " + displayHost(u) + " in your browser")
	d.deviceOpen.OnTapped = func() { d.openURL(open) }
	if dc.ExpiresAt.IsZero() {
		d.deviceUntil.SetText("")
	} else {
		d.deviceUntil.SetText("The code works until " + shortTime(dc.ExpiresAt) + ".")
	}
	d.status.SetText("Waiting for you to enter the code (at most 5 minutes)…")
	d.device.Show()
	d.content.Refresh()
}

func (d *signInDialog) openVerification() {
	if d.verifyURL != nil {
		d.openURL(d.verifyURL)
	}
}

func (d *signInDialog) openURL(u *url.URL) {
	if u == nil || safeLinkURL(u) == nil {
		return
	}
	if err := d.s.w.env.app.OpenURL(u); err != nil {
		d.fail("Could not open a browser: " + signinText(err) + " Type the address in a browser yourself.")
	}
}

// showEndpointChange shows the old and new sign-in endpoints and asks
// whether to trust the new ones. Not to is the default (Escape, closing).
func (s *signinSection) showEndpointChange(ce *auth.EndpointChangedError) {
	a := s.agent
	how := signinOptionWords(auth.Option{Scheme: ce.Scheme, Flow: ce.Flow, Kind: schemeKind(a.Card, ce.Scheme)}, a.Card)
	d := dialog.NewCustomConfirm("Sign-in endpoints changed", "Trust the new endpoints", "Keep the old ones",
		endpointChangeContent(agentTitle(a), how, ce), func(ok bool) {
			if ok {
				s.acceptEndpoints(a.ID)
			}
		}, s.w.Window)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Resize(fyne.NewSize(600, 480))
	s.w.showDialog(d)
}

// endpointChangeContent lists what moved: each endpoint before and now.
func endpointChangeContent(agent, how string, ce *auth.EndpointChangedError) fyne.CanvasObject {
	box := container.NewVBox(wrapLabel(fmt.Sprintf("%s now names other sign-in endpoints than those you first signed in with (%s, scheme “%s”):", agent, how, signinClip(ce.Scheme, 60))))
	for _, c := range endpointChanges(ce.Old, ce.New) {
		box.Add(widget.NewLabelWithStyle(c.name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		was := wrapLabel("Before: " + signinOrNone(c.old))
		was.Wrapping = fyne.TextWrapBreak
		now := signinLine("Now: "+signinOrNone(c.new), widget.DangerImportance)
		now.Wrapping = fyne.TextWrapBreak
		box.Add(was)
		box.Add(now)
	}
	box.Add(wrapLabel("If the agent's owner told you they moved to another identity provider, this is expected. If not, someone may be trying to collect your sign-in: keep the old endpoints and ask the owner."))
	box.Add(lowLabel("Trusting the new endpoints signs you out of the old provider; you then sign in again. Until then aimdesk keeps using the old ones."))
	return container.NewVScroll(box)
}

type endpointChange struct{ name, old, new string }

// endpointChanges lists the endpoints that differ, in a fixed order.
func endpointChanges(o, n auth.Endpoints) []endpointChange {
	all := []endpointChange{
		{"Identity provider (issuer)", o.Issuer, n.Issuer},
		{"Sign-in page (authorization endpoint)", o.Authorization, n.Authorization},
		{"Token endpoint", o.Token, n.Token},
		{"Refresh endpoint", o.Refresh, n.Refresh},
		{"Device code endpoint", o.DeviceAuthorization, n.DeviceAuthorization},
		{"Revocation endpoint", o.Revocation, n.Revocation},
		{"Agent (where credentials go)", o.Agent, n.Agent},
	}
	var out []endpointChange
	for _, c := range all {
		if c.old != c.new {
			c.old, c.new = signinClip(c.old, 300), signinClip(c.new, 300)
			out = append(out, c)
		}
	}
	return out
}

func signinOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// acceptEndpoints re-pins after the user agreed.
func (s *signinSection) acceptEndpoints(agentID string) {
	go func() {
		err := s.confirmEndpoints(s.w.ctx, agentID)
		s.w.post(func() {
			if err != nil {
				s.w.showError(errors.New(signinText(err)))
				return
			}
			if s.dlg != nil && s.dlg.agent.ID == agentID {
				s.dlg.errLabel.Importance = widget.MediumImportance
				s.dlg.fail("The new endpoints are trusted now, and you were signed out of the old provider. Sign in again.")
				s.dlg.errLabel.Importance = widget.DangerImportance
			} else {
				s.w.showDialog(dialog.NewInformation("Endpoints trusted",
					"The new sign-in endpoints are trusted now, and you were signed out of the old provider. Sign in again.", s.w.Window))
			}
			if agentID == s.agent.ID {
				s.fetch()
			}
		})
	}()
}

// showSignOut asks, then signs out and says what happened to the
// credential.
func (s *signinSection) showSignOut() {
	if s.state == nil || !s.state.SignedIn {
		return
	}
	a, st := s.agent, *s.state
	ses := st.Session
	store := st.Store
	if store == "" {
		store = "this computer"
	}
	msg := "aimdesk deletes the stored sign-in from " + store + "."
	switch {
	case ses.Flow == auth.FlowAPIKey || ses.Flow == auth.FlowBearer:
		msg += " The agent is not told: if the " + secretWords(auth.Option{Flow: ses.Flow}) + " should stop working everywhere, revoke it where it was issued."
	case ses.Endpoints.Revocation != "":
		msg += " It also asks the identity provider (" + signinURLHost(ses.Endpoints.Revocation) + ") to revoke the tokens."
	default:
		msg += " The identity provider offers no way to revoke tokens: the access token keeps working until it expires"
		if !ses.Expiry.IsZero() {
			msg += " (" + shortTime(ses.Expiry) + ")"
		}
		msg += "."
	}
	d := dialog.NewConfirm("Sign out of "+agentTitle(a)+"?", msg, func(ok bool) {
		if ok {
			s.signOut(a, ses)
		}
	}, s.w.Window)
	d.SetConfirmText("Sign out")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	s.w.showDialog(d)
}

func (s *signinSection) signOut(a app.Agent, ses auth.State) {
	go func() {
		revoked, err := s.w.core.SignOut(s.w.ctx, a.ID)
		s.w.post(func() {
			if err != nil {
				s.w.showError(errors.New("Could not sign out: " + signinText(err)))
			} else {
				s.w.showDialog(dialog.NewInformation("Signed out of "+agentTitle(a), signOutResult(ses, revoked), s.w.Window))
			}
			if a.ID == s.agent.ID {
				s.fetch()
			}
		})
	}()
}

// signOutResult says what became of the credential, and whether the
// identity provider confirmed the revocation.
func signOutResult(ses auth.State, revoked bool) string {
	switch {
	case ses.Flow == auth.FlowAPIKey || ses.Flow == auth.FlowBearer:
		return "The " + secretWords(auth.Option{Flow: ses.Flow}) + " is deleted from this computer. The agent was not told; it still works wherever else it is used."
	case ses.Endpoints.Revocation != "" && revoked:
		return "The tokens are deleted from this computer, and the identity provider confirmed it revoked them."
	case ses.Endpoints.Revocation != "":
		return "The tokens are deleted from this computer. aimdesk asked the identity provider to revoke them, but it did not confirm: the access token may keep working until it expires."
	}
	return "The tokens are deleted from this computer. The identity provider offers no revocation, so the access token keeps working until it expires."
}

// showPermission tells which permission a step-up asks for, and why.
func (s *signinSection) showPermission(p auth.PermissionRequest) {
	box := container.NewVBox(wrapLabel(agentTitle(s.agent) + " needs more permission for what you are doing:"))
	for _, m := range p.Missing {
		box.Add(widget.NewLabelWithStyle(signinClip(m.Scope, 100), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		if m.Reason != "" {
			box.Add(wrapLabel(strings.ToUpper(m.Reason[:1]) + m.Reason[1:] + "."))
		}
	}
	if p.Method != "" {
		box.Add(lowLabel("Asked for by the call " + signinClip(p.Method, 60) + "."))
	}
	if len(p.Granted) > 0 {
		box.Add(lowLabel("Already granted: " + strings.Join(p.Granted, ", ") + ". Only what is missing is asked for."))
	}
	box.Add(wrapLabel("Continue opens the identity provider's page, which asks you again. Not now fails the call and grants nothing more."))
	agentID := s.agent.ID
	d := dialog.NewCustomConfirm("More permission asked for", "Continue", "Not now", box, func(allow bool) {
		go func() {
			if err := s.w.core.AnswerPermission(agentID, allow); err != nil {
				s.w.post(func() { s.w.showError(err) })
			}
		}()
	}, s.w.Window)
	d.Resize(fyne.NewSize(480, 300))
	s.w.showDialog(d)
}

// showPinKeys asks for the public keys the agent's card must be signed
// with (a JWK or JWK Set pasted by the user) and pins them.
func (s *signinSection) showPinKeys() {
	a := s.agent
	entry := newEscEntry(s.w)
	entry.MultiLine = true
	entry.Wrapping = fyne.TextWrapBreak
	entry.TextStyle = fyne.TextStyle{Monospace: true}
	entry.SetPlaceHolder(`{"keys": [{"kty": "EC", "crv": "P-256", "kid": "…", "x": "…", "y": "…"}]}`)
	entry.SetMinRowsVisible(8)
	result := signinLine("", widget.DangerImportance)
	result.Hide()
	content := container.NewVBox(
		wrapLabel("Paste the public keys (a JWK or a JWK Set, as JSON) this agent's card must be signed with. Get them from the agent's owner in a way you trust, not from the agent itself."),
		entry,
		lowLabel("Once keys are pinned only they count for this agent: keys the card points to are ignored. Only public key parts are kept."),
		result)
	var d *dialog.CustomDialog
	pin := widget.NewButtonWithIcon("Pin keys", theme.ConfirmIcon(), nil)
	pin.Importance = widget.HighImportance
	forget := widget.NewButton("Forget pinned keys", nil)
	run := func(jwks []byte) {
		pin.Disable()
		forget.Disable()
		go func() {
			res, err := s.w.core.PinCardKeys(s.w.ctx, a.ID, jwks)
			s.w.post(func() {
				pin.Enable()
				forget.Enable()
				if err != nil {
					result.Importance = widget.DangerImportance
					result.SetText("These keys cannot be used: " + signinText(err))
					result.Show()
					return
				}
				if a.ID == s.agent.ID && s.state != nil {
					s.state.Card, s.trustErr = res, nil
					s.render(true)
				}
				if res.Status == trust.StatusVerified || jwks == nil {
					d.Hide()
					return
				}
				result.Importance = widget.DangerImportance
				result.SetText("The keys are pinned, but the card does not verify with them: " + res.Reason() + ".")
				result.Show()
			})
		}()
	}
	pin.OnTapped = func() {
		text := strings.TrimSpace(entry.Text)
		if text == "" {
			result.SetText("Paste the keys first.")
			result.Show()
			return
		}
		run([]byte(text))
	}
	forget.OnTapped = func() { run(nil) }
	d = dialog.NewCustomWithoutButtons("Pin card keys for "+agentTitle(a), content, s.w.Window)
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", func() { d.Hide() }), forget, pin})
	d.Resize(fyne.NewSize(560, 420))
	s.w.showDialog(d)
	s.w.Canvas().Focus(entry)
}
