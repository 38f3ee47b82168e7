/// One part of a ``QueryKey`` as a dictionary key of the query index: equal only to a part of the same type and value.
///
/// Only a wrapper of the part (no allocation); the key keeps its parts as they were written.
struct QueryKeyPart: Hashable, Sendable {
  let value: any Hashable & Sendable

  init(_ value: any Hashable & Sendable) {
    self.value = value
  }

  static func == (lhs: QueryKeyPart, rhs: QueryKeyPart) -> Bool {
    isEqual(lhs.value, rhs.value)
  }

  func hash(into hasher: inout Hasher) {
    value.hash(into: &hasher)
  }

  /// Whether both parts have the same dynamic type and equal values.
  ///
  /// The same type, not a cast: a cast would make an instance of a subclass equal to one of its superclass in one
  /// direction only, and equal parts must hash alike. Comparing the two opened types costs a third of a cast.
  static func isEqual(_ lhs: any Hashable & Sendable, _ rhs: any Hashable & Sendable) -> Bool {
    func open<Left: Hashable>(_ lhs: Left) -> Bool {
      func open<Right: Hashable>(_ rhs: Right) -> Bool {
        guard Left.self == Right.self else { return false }
        // The same type, checked above: the cast reinterprets nothing.
        return lhs == unsafeBitCast(rhs, to: Left.self)
      }
      return open(rhs)
    }
    return open(lhs)
  }

  /// The part as it reads in code: a string quoted, anything else as it describes itself.
  static func describe(_ part: any Hashable & Sendable) -> String {
    if let string = part as? String { return "\"\(string)\"" }
    return String(describing: part)
  }

  /// Replaces each optional part with its wrapped value, or with a `nil` part when it is `nil`.
  ///
  /// Copies nothing when no part is optional.
  static func unwrapOptionals(in parts: inout [any Hashable & Sendable]) {
    for index in parts.indices {
      // The parts that literals make are never optional: no conformance lookup (about 100 ns) for them.
      let type = Swift.type(of: parts[index])
      if type == String.self || type == Int.self { continue }
      guard let optional = parts[index] as? any OptionalQueryKeyPart else { continue }
      guard let wrapped = optional.wrappedPart else {
        parts[index] = QueryKeyNil()
        continue
      }
      // The optional was `Sendable`, so the value it wraps is: `Optional` is `Sendable` exactly when its wrapped
      // type is. `Sendable` is a marker protocol with no run-time representation, so both existentials have the
      // same layout (Swift cannot state the conditional conformance with the marker protocol in it). `as any
      // Hashable` keeps the existential closed: opened, its payload would not have the existential's size.
      parts[index] = unsafeBitCast(wrapped as any Hashable, to: (any Hashable & Sendable).self)
    }
  }
}

/// An optional used as a key part.
private protocol OptionalQueryKeyPart {
  /// The wrapped value, itself unwrapped if it is an optional; `nil` when there is none.
  var wrappedPart: (any Hashable)? { get }
}

extension Optional: OptionalQueryKeyPart where Wrapped: Hashable {
  fileprivate var wrappedPart: (any Hashable)? {
    guard let wrapped = self else { return nil }
    if let optional = wrapped as? any OptionalQueryKeyPart { return optional.wrappedPart }
    return wrapped
  }
}

/// The part a `nil` optional stands for: equal to every other `nil` part, whatever the optional's type.
struct QueryKeyNil: Hashable, Sendable, CustomStringConvertible {
  var description: String { "nil" }
}
