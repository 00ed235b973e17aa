"""Classes a twentieth unseen corpus found open (docs/security.md#measuring-generalisation), closed as classes:
installs of a project's dependencies by every ecosystem's own tool; a secret store dumped or exported;
AppleScript run inline; and the recursive deletes of the file APIs of languages read as text (Swift, Kotlin,
Dart), with the home directory however they spell it. Every case is a variant written for its class;
look-alikes stay clean."""

from __future__ import annotations

import pytest

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import SHOP, class_tests, shop_categories

FLAGGED = {
    # What `npm ci` and `bundle install` are for Node and Ruby, each ecosystem's own tool is for its own.
    "cd apps/ios && bundle exec pod update Alamofire": cat.PACKAGE_INSTALL,
    "carthage update --use-xcframeworks --platform iOS": cat.PACKAGE_INSTALL,
    "swift package --package-path Packages/Core update": cat.PACKAGE_INSTALL,
    "fvm flutter pub upgrade --major-versions": cat.PACKAGE_INSTALL,
    "dotnet tool install --global dotnet-ef": cat.PACKAGE_INSTALL,
    "xcodebuild -resolvePackageDependencies -project Bank.xcodeproj": cat.PACKAGE_INSTALL,
    "mix deps.update --all": cat.PACKAGE_INSTALL,
    "flutter pub add http": cat.PACKAGE_INSTALL,  # as `cargo add`, `yarn add`, `poetry add` are
    # A secret store's whole content dumped or exported.
    "security dump-keychain -a -d build.keychain > /tmp/k.txt": cat.CREDENTIAL_ACCESS,
    "security export -k ~/Library/Keychains/login.keychain-db -t privKeys -f pkcs12 -o keys.p12":
        cat.CREDENTIAL_ACCESS,
    "op vault export Private --format json": cat.CREDENTIAL_ACCESS,
    # AppleScript (or JXA) given inline: code in a language nobody read, that can drive a terminal.
    "osascript -e 'tell application \"iTerm\" to write text \"git push -f\"'": cat.DYNAMIC_COMMAND,
    "osascript -l JavaScript -e 'Application(\"System Events\").keystroke(\"q\")'": cat.DYNAMIC_COMMAND,
}

LOOK_ALIKES = [
    "pod lib lint BankKit.podspec --allow-warnings",
    "pod spec cat Alamofire",
    "swift build -c release",
    "swift test --parallel",
    "flutter test test/widgets",
    "dotnet build -c Release",
    "dotnet test --no-restore",
    "xcodebuild -list -project Bank.xcodeproj",
    "mix test --cover",
    "security find-identity -v -p codesigning",
    "security list-keychains -d user",
    "osascript scripts/notify.scpt",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)

PROGRAMS = {
    "swift": ("Tools/reset.swift", "import Foundation\nlet h = FileManager.default.homeDirectoryForCurrentUser.path\n"
              "try? FileManager.default.removeItem(atPath: h + \"/.ssh\")\n"),
    "kotlin": ("tools/wipe.main.kts", "import java.io.File\n"
               "File(System.getProperty(\"user.home\") + \"/.m2\").deleteRecursively()\n"),
    "dart": ("tool/purge.dart", "import 'dart:io';\nvoid main() {\n"
             "  Directory(Platform.environment['HOME']! + '/.config').deleteSync(recursive: true);\n}\n"),
}
RUNS = {"swift": "swift Tools/reset.swift", "kotlin": "kotlin tools/wipe.main.kts", "dart": "dart run tool/purge.dart"}


@pytest.mark.parametrize("language", list(PROGRAMS))
def test_a_program_deleting_a_home_folder_is_a_destructive_delete(language: str) -> None:
    path, text = PROGRAMS[language]
    assert cat.DESTRUCTIVE_DELETE in shop_categories(RUNS[language], ((f"{SHOP}/{path}", text),))


@pytest.mark.parametrize("language", list(PROGRAMS))
def test_a_program_deleting_its_own_build_folder_is_not(language: str) -> None:
    path, _ = PROGRAMS[language]
    text = {"swift": 'import Foundation\ntry? FileManager.default.removeItem(atPath: "build/tmp")\n',
            "kotlin": 'import java.io.File\nFile("build", "generated").deleteRecursively()\n',
            "dart": "import 'dart:io';\nvoid main() { Directory('build/cache').deleteSync(recursive: true); }\n"}
    assert shop_categories(RUNS[language], ((f"{SHOP}/{path}", text[language]),)) == frozenset()
