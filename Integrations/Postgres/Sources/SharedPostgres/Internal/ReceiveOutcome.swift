/// What a held value did with a stored version (``HeldValue/receive(_:heard:)``).
enum ReceiveOutcome: Sendable, Equatable {
  /// Memory took it, or a value combined with it.
  case taken
  /// Memory kept a change of the program made since the version was heard.
  case kept
  /// The JSON is not of the value's type, and no migration converts it.
  case undecodable
}
