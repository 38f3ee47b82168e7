public import Foundation
import Reactive

/// Whether the app is active, followed through the application's activity notifications.
///
/// ```swift
/// let subscription = SharedRegistry.current.queries.refetch(onFocus: ApplicationFocus.platform)
/// ```
///
/// ``platform`` listens for UIKit's `didBecomeActive` and `willResignActive` notifications on iOS, tvOS and
/// visionOS, and AppKit's `didBecomeActive` and `didResignActive` on macOS. Elsewhere (Linux), there are no such
/// notifications: post your own names to a notification center, or use ``ManualFocus``.
///
/// The app counts as active until the first notification says otherwise.
public final class ApplicationFocus: FocusSource {
  private let status: StatusBroadcast
  private let center: NotificationCenter
  private let observers: Lock<[any NSObjectProtocol]>

  /// Follows the notifications named `becameActive` and `resignedActive`, posted to `center`.
  ///
  /// - Parameters:
  ///   - becameActive: The notification that the app became active.
  ///   - resignedActive: The notification that the app is no longer active.
  ///   - center: Where they are posted; the default center by default.
  public init(
    becameActive: Notification.Name,
    resignedActive: Notification.Name,
    center: NotificationCenter = .default
  ) {
    let status = StatusBroadcast(true)
    self.status = status
    self.center = center
    let active = center.addObserver(forName: becameActive, object: nil, queue: nil) { _ in status.set(true) }
    let inactive = center.addObserver(forName: resignedActive, object: nil, queue: nil) { _ in status.set(false) }
    observers = Lock([active, inactive])
  }

  deinit {
    let observers = self.observers.withLock { $0 }
    for observer in observers { center.removeObserver(observer) }
  }

  /// The application's own notifications on Apple platforms (see the type's description); a source that stays
  /// active elsewhere.
  public static var platform: ApplicationFocus {
    #if os(macOS)
      ApplicationFocus(
        becameActive: Notification.Name("NSApplicationDidBecomeActiveNotification"),
        resignedActive: Notification.Name("NSApplicationDidResignActiveNotification"))
    #else
      ApplicationFocus(
        becameActive: Notification.Name("UIApplicationDidBecomeActiveNotification"),
        resignedActive: Notification.Name("UIApplicationWillResignActiveNotification"))
    #endif
  }

  /// Whether the app is active now.
  public var isFocused: Bool { status.value }

  /// The status now, then each change of it.
  public func focusStatuses() -> AsyncStream<Bool> {
    status.statuses()
  }
}
