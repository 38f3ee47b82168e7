import Shared

/// Two "screens" hold the same session; one signs in, both see it.
@MainActor
func runAuthScenario() async -> String {
  let console = DemoEnvironment.current.console
  console.heading("Auth: one session, every screen")
  @Shared(.inMemory("auth")) var loginScreen = AuthSession()
  @Shared(.inMemory("auth")) var profileBadge = AuthSession()
  let pending = $loginScreen.signInAsGuest()
  console.line("profile badge: while the login screen signs in, isLoading = \(profileBadge.isLoading)")
  _ = await pending.result
  _ = await $profileBadge.signOut().result

  _ = await $loginScreen.signInAsGuest(
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
  console.line("profile badge: \(profileBadge.user?.name ?? "nobody") (guest: \(profileBadge.isGuest))")

  let email = "ada@example.com"
  var code = ""
  _ = await $loginScreen.sendMagicCode(
    to: email,
    onSuccess: { sent in
      code = sent
      console.line("mail: your code is \(sent)", .muted)
    }
  ).result
  _ = await $loginScreen.verifyMagicCode(
    email: email, code: "000000",
    onError: { error in
      console.line("login screen: \(error); the error stays for every screen until the next success", .failure)
    }
  ).result
  console.line("profile badge: isError = \(profileBadge.isError)")
  _ = await $loginScreen.verifyMagicCode(
    email: email, code: code,
    onSuccess: { user in console.line("login screen: signed in as \(user.email ?? user.name)", .success) }
  ).result
  console.line("profile badge: \(profileBadge.user?.name ?? "nobody"), authenticated: \(profileBadge.isAuthenticated)")
  _ = await $profileBadge.signOut(
    onSuccess: { console.line("profile badge: signed out; the login screen sees it too") }
  ).result
  $loginScreen.reset()
  return "auth: signed in as guest and with a code, then out; both screens agreed at every step"
}
