public import Foundation

/// An error with an identity: equal only to itself and its copies, never to another error.
///
/// Errors in Swift have no equality of their own, so two failures could not be told apart. Wrapping one gives it an
/// identity that survives copying:
///
/// ```swift
/// let first = HashableError(URLError(.timedOut))
/// let copy = first
/// #expect(first == copy)
/// #expect(first != HashableError(URLError(.timedOut)))
/// ```
///
/// Wrapping a `HashableError` again keeps its identity. It describes itself as the error it wraps, localized
/// description included, so that showing a failure (an ``OperationPhase/failed(_:previous:)`` case) needs no
/// unwrapping.
public struct HashableError: Error, Hashable, Sendable, CustomStringConvertible {
  private final class Identity: Sendable {
    let error: any Error
    init(_ error: any Error) { self.error = error }
  }

  private let identity: Identity

  /// Gives `error` an identity; an error that already is a `HashableError` keeps its own.
  ///
  /// - Parameter error: The error.
  public init(_ error: any Error) {
    if let existing = error as? HashableError {
      self = existing
    } else {
      identity = Identity(error)
    }
  }

  /// The wrapped error.
  public var error: any Error { identity.error }

  /// Whether both are the same error (the same wrapping, or copies of it).
  public static func == (lhs: HashableError, rhs: HashableError) -> Bool {
    lhs.identity === rhs.identity
  }

  /// Hashes the identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(identity))
  }

  /// The wrapped error, described.
  public var description: String {
    String(describing: identity.error)
  }
}

extension HashableError: LocalizedError {
  /// The wrapped error's localized description, so that `localizedDescription` reads as the error's own.
  ///
  /// ```swift
  /// let failure = HashableError(URLError(.timedOut))
  /// #expect(failure.localizedDescription == URLError(.timedOut).localizedDescription)
  /// ```
  public var errorDescription: String? { error.localizedDescription }

  /// The wrapped error's failure reason, if it gives one.
  public var failureReason: String? { (error as? any LocalizedError)?.failureReason }

  /// The wrapped error's recovery suggestion, if it gives one.
  public var recoverySuggestion: String? { (error as? any LocalizedError)?.recoverySuggestion }

  /// The wrapped error's help anchor, if it gives one.
  public var helpAnchor: String? { (error as? any LocalizedError)?.helpAnchor }
}
