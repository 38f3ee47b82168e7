import SharedState

/// The body of `POST /api/actions`: the key's id, the action's name and, for `forceError`, the error's message.
struct ActionRequest: Decodable {
  var key: String
  var action: String
  var message: String?

  /// The names the endpoint takes, in the order the page shows them.
  static let actionNames = ["refetch", "invalidate", "reset", "remove", "forceLoading", "forceError", "restore"]

  /// The message of a forced error when the request gives none.
  static let defaultErrorMessage = "Forced by the inspector"

  /// The action this request names, or `nil` for an unknown name.
  var inspectorAction: InspectorAction? {
    switch action {
    case "refetch": .refetch
    case "invalidate": .invalidate
    case "reset": .reset
    case "remove": .remove
    case "forceLoading": .forceLoading
    case "forceError": .forceError(message: message ?? Self.defaultErrorMessage)
    case "restore": .restore
    default: nil
    }
  }
}
