@_exported public import Reactive
