import Foundation
import SharedState

/// A signed-in person.
struct User: Codable, Sendable, Equatable {
  var id: String
  var name: String
  var email: String?
}

/// Who is signed in.
enum AuthState: Sendable, Equatable {
  case loading
  case unauthenticated
  case guest(User)
  case authenticated(User)
}

/// What an authentication operation changed.
enum AuthChange: Sendable, Equatable {
  case signedIn(User)
  case signedInAsGuest(User)
  case codeSent(String)
  case signedOut
}

/// The session every screen shares: who is signed in, and how the latest sign-in operation went.
///
/// There is no loading or error flag in any screen: they read `operation.status` and `operation.error` here.
struct AuthSession: OperationTrackable, Equatable {
  var state = AuthState.unauthenticated
  var operation = OperationTracking()
  /// The code sent by the latest `sendMagicCode`, as a mail client would show it.
  var lastSentCode: String?

  var user: User? {
    switch state {
    case .guest(let user), .authenticated(let user): return user
    case .loading, .unauthenticated: return nil
    }
  }

  var isSignedIn: Bool { user != nil }
  var isAuthenticated: Bool { if case .authenticated = state { true } else { false } }
  var isGuest: Bool { if case .guest = state { true } else { false } }

  mutating func applySuccess(_ change: AuthChange) {
    switch change {
    case .signedIn(let user): state = .authenticated(user)
    case .signedInAsGuest(let user): state = .guest(user)
    case .codeSent(let code): lastSentCode = code
    case .signedOut: state = .unauthenticated
    }
  }
}

extension Shared where Value == AuthSession {
  /// Signs in as a guest.
  @discardableResult
  func signInAsGuest(
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((User) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<User, any Error>) -> Void)? = nil
  ) -> OperationTask<AuthChange> {
    let backend = DemoEnvironment.current.auth
    return authenticate(
      policy: .dedupe, isolation: isolation, { .signedInAsGuest(try await backend.signInAsGuest()) },
      output: { $0.user! }, onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Sends a magic code to `email`.
  @discardableResult
  func sendMagicCode(
    to email: String,
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((String) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<String, any Error>) -> Void)? = nil
  ) -> OperationTask<AuthChange> {
    let backend = DemoEnvironment.current.auth
    return authenticate(
      policy: .cancelPrevious, isolation: isolation, { .codeSent(try await backend.sendMagicCode(to: email)) },
      output: { change in if case .codeSent(let code) = change { code } else { "" } },
      onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Signs in with the code sent to `email`.
  @discardableResult
  func verifyMagicCode(
    email: String,
    code: String,
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((User) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<User, any Error>) -> Void)? = nil
  ) -> OperationTask<AuthChange> {
    let backend = DemoEnvironment.current.auth
    return authenticate(
      policy: .dedupe, isolation: isolation,
      { .signedIn(try await backend.verifyMagicCode(email: email, code: code)) },
      output: { $0.user! }, onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Signs out.
  @discardableResult
  func signOut(
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: (() -> Void)? = nil,
    onSuccess: (() -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<Void, any Error>) -> Void)? = nil
  ) -> OperationTask<AuthChange> {
    let backend = DemoEnvironment.current.auth
    return authenticate(
      policy: .dedupe, isolation: isolation,
      {
        try await backend.signOut()
        return .signedOut
      },
      output: { _ in () }, onAttempt: onAttempt, onSuccess: { _ in onSuccess?() }, onError: onError,
      onSettled: onSettled)
  }

  /// Runs an authentication operation and hands each callback the part of its result that matters to it.
  private func authenticate<Output>(
    policy: OperationPolicy,
    isolation: isolated (any Actor)?,
    _ operation: @escaping @Sendable () async throws -> AuthChange,
    output: @escaping (AuthChange) -> Output,
    onAttempt: (() -> Void)?,
    onSuccess: ((Output) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Output, any Error>) -> Void)?
  ) -> OperationTask<AuthChange> {
    run(
      policy: policy, isolation: isolation, operation, onAttempt: onAttempt,
      onSuccess: { onSuccess?(output($0)) }, onError: onError, onSettled: { onSettled?($0.map(output)) })
  }
}

extension AuthChange {
  var user: User? {
    switch self {
    case .signedIn(let user), .signedInAsGuest(let user): return user
    case .codeSent, .signedOut: return nil
    }
  }
}
