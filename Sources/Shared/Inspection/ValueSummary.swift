import Foundation

/// A bounded summary of a value, as an inspector shows it: JSON where the value is `Encodable`, otherwise its
/// description.
///
/// ```swift
/// let summary = ValueSummary(of: ["milk", "eggs"])
/// print(summary.text)  // ["milk","eggs"]
/// ```
///
/// A summary never holds more than ``limit`` characters: a longer text is cut and ``isTruncated`` is set (a cut JSON
/// text is no longer valid JSON). A value that tracks an operation (``OperationState``, ``MutationState``,
/// ``PaginatedState``) is summarized by what it holds, its `value` or its pages; its status is shown apart.
public struct ValueSummary: Sendable, Hashable {
  /// The longest text a summary keeps, in characters.
  public static let limit = 4_096

  /// JSON when ``isJSON``, otherwise the value's description; at most ``limit`` characters.
  public var text: String
  /// Whether ``text`` is the value encoded as JSON (with sorted keys).
  public var isJSON: Bool
  /// Whether ``text`` was cut at ``limit`` characters.
  public var isTruncated: Bool

  /// A summary with the given parts.
  ///
  /// - Parameters:
  ///   - text: The summary's text.
  ///   - isJSON: Whether the text is JSON.
  ///   - isTruncated: Whether the text was cut.
  public init(text: String, isJSON: Bool, isTruncated: Bool) {
    self.text = text
    self.isJSON = isJSON
    self.isTruncated = isTruncated
  }

  /// The summary of `value`. Encodes the value or asks its description: the program's code, so call it outside every
  /// lock.
  ///
  /// - Parameter value: The value to summarize.
  public init(of value: Any) {
    let shown = (value as? any InspectedPayload)?.inspectedPayload ?? value
    if let encodable = shown as? any Encodable, let json = Self.json(encodable) {
      self.init(bounded: json, isJSON: true)
    } else if let optional = shown as? any OptionalValue, optional.isNone {
      self.init(bounded: "null", isJSON: true)
    } else {
      self.init(bounded: String(describing: shown), isJSON: false)
    }
  }

  private init(bounded text: String, isJSON: Bool) {
    if text.count > Self.limit {
      self.init(text: String(text.prefix(Self.limit)), isJSON: isJSON, isTruncated: true)
    } else {
      self.init(text: text, isJSON: isJSON, isTruncated: false)
    }
  }

  private static func json(_ value: any Encodable) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(value) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}

/// A value that tracks an operation and is best shown by what it holds.
protocol InspectedPayload {
  /// What the value holds, without its operation's tracking.
  var inspectedPayload: Any { get }
}

/// An optional, asked whether it is empty without knowing its wrapped type.
protocol OptionalValue {
  var isNone: Bool { get }
}

extension Optional: OptionalValue {
  var isNone: Bool { self == nil }
}

extension OperationState: InspectedPayload {
  var inspectedPayload: Any { value as Any }
}

extension MutationState: InspectedPayload {
  var inspectedPayload: Any { value as Any }
}

extension PaginatedState: InspectedPayload {
  var inspectedPayload: Any { pages }
}
