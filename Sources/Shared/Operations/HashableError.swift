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
/// Wrapping a `HashableError` again keeps its identity.
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
