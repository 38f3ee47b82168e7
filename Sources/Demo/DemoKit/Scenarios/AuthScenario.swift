import SharedState

/// Two "screens" hold the same session; one signs in, both see it.
@MainActor
func runAuthScenario() async -> String {
  let console = DemoEnvironment.current.console
  console.heading("Auth: one session, every screen")
  @Shared(.inMemory("auth")) var loginScreen = AuthSession()
  @Shared(.inMemory("auth")) var profileBadge = AuthSession()
  // Whether the two screens showed the same session after every step.
  var agreed = true
  let login = $loginScreen
  let badge = $profileBadge
  func check() { agreed = agreed && login.wrappedValue == badge.wrappedValue }

  let pending = $loginScreen.signInAsGuest()
  console.line("profile badge: while the login screen signs in, status = \(profileBadge.operation.status.rawValue)")
  check()
  _ = await pending.result
  check()
  _ = await $profileBadge.signOut().result
  check()

  let guest = await $loginScreen.signInAsGuest(
    onAttempt: {
      console.line("login screen: signing in as a guest…")
    },
    onSuccess: { user in
      console.line("login screen: welcome, \(user.name)", .success)
    },
    onError: { error in
      console.line("login screen: could not sign in: \(error)", .failure)
    }
  ).result
  check()
  console.line("profile badge: \(profileBadge.user?.name ?? "nobody") (guest: \(profileBadge.isGuest))")

  let email = "ada@example.com"
  var code: String?
  _ = await $loginScreen.sendMagicCode(
    to: email,
    onSuccess: { sent in
      code = sent
      console.line("mail: your code is \(sent)", .muted)
    },
    onError: { error in
      console.line("mail: no code came: \(error)", .failure)
    }
  ).result
  check()
  _ = await $loginScreen.verifyMagicCode(
    email: email, code: "000000",
    onError: { error in
      console.line("login screen: \(error); the error stays for every screen until the next success", .failure)
    }
  ).result
  check()
  console.line("profile badge: status = \(profileBadge.operation.status.rawValue)")
  var signedInWithCode = false
  if let code {
    let result = await $loginScreen.verifyMagicCode(
      email: email, code: code,
      onSuccess: { user in console.line("login screen: signed in as \(user.email ?? user.name)", .success) },
      onError: { error in console.line("login screen: could not sign in with the code: \(error)", .failure) }
    ).result
    signedInWithCode = (try? result.get()) != nil
    check()
  }
  console.line("profile badge: \(profileBadge.user?.name ?? "nobody"), authenticated: \(profileBadge.isAuthenticated)")
  let signOut = await $profileBadge.signOut(
    onSuccess: { console.line("profile badge: signed out; the login screen sees it too") },
    onError: { error in console.line("profile badge: could not sign out: \(error)", .failure) }
  ).result
  check()
  $loginScreen.reset()

  return "auth: "
    + authSummary(
      signedInAsGuest: (try? guest.get()) != nil, codeSent: code != nil, signedInWithCode: signedInWithCode,
      signedOut: (try? signOut.get()) != nil)
    + (agreed ? "; both screens agreed at every step" : "; the screens disagreed")
}

/// What the auth scenario did, in words: only what succeeded is claimed.
func authSummary(signedInAsGuest: Bool, codeSent: Bool, signedInWithCode: Bool, signedOut: Bool) -> String {
  if signedInAsGuest && signedInWithCode && signedOut { return "signed in as guest and with a code, then out" }
  var done: [String] = []
  var failed: [String] = []
  if signedInAsGuest { done.append("signed in as guest") } else { failed.append("the guest sign-in") }
  if !codeSent {
    failed.append("sending the code")
  } else if signedInWithCode {
    done.append("signed in with a code")
  } else {
    failed.append("the sign-in with a code")
  }
  if signedOut { done.append("signed out") } else { failed.append("the sign-out") }
  let succeeded = done.isEmpty ? "nothing succeeded" : done.joined(separator: ", ")
  return failed.isEmpty ? succeeded : "\(succeeded); failed: \(failed.joined(separator: ", "))"
}
