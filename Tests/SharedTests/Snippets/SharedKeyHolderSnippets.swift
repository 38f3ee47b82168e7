// The snippets about a holder that moves between keys, as the documentation comments and the DocC article
// "Storing values" (StoringValues.md) show them, so that they compile.
import Foundation
import SharedState

struct SharedKeyHolderSnippets {
  struct Settings: Codable, Sendable, Equatable {
    var theme = "light"
  }

  func apply(_ settings: Settings) {}
  func showSpinner() {}

  // ShownValue
  func render(_ shown: ShownValue<Settings>) {
    apply(shown.value)
    if shown.isPlaceholder { showSpinner() }  // The new key's value is still loading.
  }

  // SharedKeyHolder; StoringValues.md, "Moving to another key"
  final class AccountModel: Sendable {
    let settings: SharedKeyHolder<Settings>

    init(user: String, folder: URL) {
      settings = SharedKeyHolder(
        Shared(wrappedValue: Settings(), .fileStorage(folder.appending(path: "\(user).json"))))
    }

    func switchTo(user: String, folder: URL) {
      settings.load(Shared(wrappedValue: Settings(), .fileStorage(folder.appending(path: "\(user).json"))))
    }
  }

  // SharedKeyHolder.shown and load(_:)
  func observeAndMove(model: AccountModel, otherURL: URL) {
    let token = model.settings.shown.observe { shown in render(shown) }
    model.settings.load(Shared(wrappedValue: Settings(), .fileStorage(otherURL)))
    _ = token
  }
}
