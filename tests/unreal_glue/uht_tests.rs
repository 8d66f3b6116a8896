//! The miniature UHT's unit tests.

use super::*;

fn generated(file: &str, text: &str) -> String {
    match generate(file, text) {
        Ok(Some(out)) => out,
        other => panic!("{file}: {other:?}"),
    }
}

fn error(file: &str, text: &str) -> UhtError {
    match generate(file, text) {
        Err(e) => e,
        Ok(out) => panic!("{file}: expected an error, got {out:?}"),
    }
}

const ACTOR: &str = r#"// An actor.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "MyActor.generated.h"

/* UCLASS( in a comment is not a class */
UCLASS(Blueprintable, meta = (ToolTip = "a { brace"))
class MYMODULE_API AMyActor
	: public AActor
{
	GENERATED_BODY()

public:
	UFUNCTION()
	void OnHit(AActor* SelfActor, AActor* OtherActor, FVector NormalImpulse, const FHitResult& Hit);

	UFUNCTION(BlueprintCallable, Category = "X")
	int32 Count() const { return 3; }

	void NotReflected();
};
"#;

#[test]
fn a_uclass_gets_super_its_class_and_its_ufunctions_at_its_line() {
    let out = generated("MyActor.h", ACTOR);
    assert!(out.contains("#define FID_MyActor_h_13_GENERATED_BODY \\\n\tpublic: \\\n\tusing Super = AActor; \\\n\tusing ThisClass = AMyActor; \\"), "{out}");
    assert!(
        out.contains("static UClass StandinClass(TEXT(\"AMyActor\"), Super::StaticClass());"),
        "{out}"
    );
    assert!(
        out.contains("StandinNameIn(InName, {TEXT(\"OnHit\"), TEXT(\"Count\")})"),
        "{out}"
    );
    assert!(out.contains("\tprivate: \\\n\n"), "{out}");
    assert!(
        out.ends_with("#undef CURRENT_FILE_ID\n#define CURRENT_FILE_ID FID_MyActor_h\n"),
        "{out}"
    );
    assert!(out.contains(
        "#error \"MyActor.generated.h already included, missing '#pragma once' in MyActor.h\""
    ));
}

#[test]
fn super_is_the_declared_base_even_a_reflected_one() {
    let text = "#pragma once\n#include \"MyActor.h\"\n#include \"Derived.generated.h\"\nUCLASS()\nclass ADerived final : public AMyActor, public IOther\n{\n\tGENERATED_UCLASS_BODY()\n};\n";
    let out = generated("Derived.h", text);
    assert!(
        out.contains("#define FID_Derived_h_7_GENERATED_BODY_LEGACY \\"),
        "{out}"
    );
    assert!(out.contains("using Super = AMyActor;"), "{out}");
    assert!(
        out.contains("return Super::StandinIsUFunction(InName);"),
        "{out}"
    );
    assert!(
        out.contains("\tpublic: \\\n\n"),
        "legacy bodies end public: {out}"
    );
}

const INTERFACE: &str = r#"#pragma once

#include "CoreMinimal.h"
#include "UObject/Interface.h"
#include "CarlaVehicleControl.generated.h"

UINTERFACE(MinimalAPI)
class UCarlaVehicleControl : public UInterface
{
	GENERATED_BODY()
};

class CARLASERVERGLUE_API ICarlaVehicleControl
{
	GENERATED_BODY()

public:
	/** The client's control. */
	UFUNCTION(BlueprintNativeEvent, BlueprintCallable, Category = "CARLA")
	void ApplyCarlaControl(float Steer, float Throttle, float Brake,
		bool bHandBrake, bool bReverse);

	UFUNCTION(BlueprintImplementableEvent, meta = (DisplayName = "Speed (m/s)"))
	float GetSpeed(const TMap<FString, int32>& Options, int32 Gear = 1) const;

	UFUNCTION(BlueprintNativeEvent)
	FString Describe();
	virtual FString Describe_Implementation() { return TEXT("mine"); }

	virtual void PlainPureVirtual() = 0;
};
"#;

#[test]
fn an_interface_gets_execute_and_implementation_functions() {
    let out = generated("CarlaVehicleControl.h", INTERFACE);
    assert!(out.contains("\nclass ICarlaVehicleControl;\n"), "{out}");
    assert!(
        out.contains("#define FID_CarlaVehicleControl_h_10_GENERATED_BODY \\"),
        "{out}"
    );
    assert!(out.contains("using Super = UInterface;"), "{out}");
    assert!(
        out.contains("using StandinInterface = ICarlaVehicleControl;"),
        "{out}"
    );
    assert!(out.contains("#define FID_CarlaVehicleControl_h_15_GENERATED_BODY \\\n\tprotected: \\\n\tvirtual ~ICarlaVehicleControl() {} \\\n\tpublic: \\\n\tusing UClassType = UCarlaVehicleControl; \\\n\tusing ThisClass = ICarlaVehicleControl; \\"), "{out}");
    assert!(out.contains("\tvirtual void ApplyCarlaControl_Implementation(float, float, float, bool, bool) { } \\"), "{out}");
    assert!(out.contains("\tstatic void Execute_ApplyCarlaControl(UObject* O, float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse) \\\n\t{ StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_ApplyCarlaControl\")->ApplyCarlaControl_Implementation(Steer, Throttle, Brake, bHandBrake, bReverse); } \\"), "{out}");
    // Implementable, const, a template parameter with a comma, a default argument.
    assert!(out.contains("\tstatic float Execute_GetSpeed(const UObject* O, const TMap<FString, int32>&, int32) \\\n\t{ (void)StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_GetSpeed\"); return {}; } \\"), "{out}");
    assert!(!out.contains("GetSpeed_Implementation"), "{out}");
    // A user-declared _Implementation is not declared again.
    assert!(
        !out.contains("virtual FString Describe_Implementation"),
        "{out}"
    );
    assert!(out.contains("{ return StandinInterfaceFor<ICarlaVehicleControl>(O, \"ICarlaVehicleControl::Execute_Describe\")->Describe_Implementation(); }"), "{out}");
    assert!(!out.contains("PlainPureVirtual"), "{out}");
}

#[test]
fn a_ustruct_gets_its_struct_and_super() {
    let text = "#pragma once\n#include \"S.generated.h\"\nUSTRUCT(BlueprintType)\nstruct FBase\n{\n\tGENERATED_BODY()\n\tUPROPERTY() int32 X = 0;\n};\nUSTRUCT()\nstruct FDerived : public FBase\n{\n\tGENERATED_USTRUCT_BODY()\n};\nUENUM()\nenum class EKind : uint8 { A, B };\n";
    let out = generated("S.h", text);
    assert!(out.contains("#define FID_S_h_6_GENERATED_BODY \\\n\tstatic UScriptStruct* StaticStruct() { static UScriptStruct StandinStruct(TEXT(\"FBase\")); return &StandinStruct; } \\\n\n"), "{out}");
    assert!(
        out.contains("#define FID_S_h_12_GENERATED_BODY \\"),
        "{out}"
    );
    assert!(out.contains("using Super = FBase;"), "{out}");
}

#[test]
fn a_header_without_reflection_gets_nothing() {
    let text = "#pragma once\n#include \"CoreMinimal.h\"\n// UCLASS() in a comment\nclass FPlain { const char* S = \"UCLASS()\"; };\n";
    assert_eq!(generate("Plain.h", text), Ok(None));
}

#[test]
fn include_rules_are_checked_with_their_lines() {
    let no_generated = "#pragma once\n#include \"CoreMinimal.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n";
    assert_eq!(error("X.h", no_generated).line, 2);
    let not_last = "#pragma once\n#include \"X.generated.h\"\n#include \"Other.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n";
    let e = error("X.h", not_last);
    assert_eq!(e.line, 3);
    assert!(
        e.message
            .contains("the last #include must be \"X.generated.h\""),
        "{e:?}"
    );
    let stray = "#pragma once\n#include \"Plain.generated.h\"\nclass FPlain {};\n";
    let e = error("Plain.h", stray);
    assert_eq!(
        (e.line, e.message.contains("declares no UCLASS")),
        (2, true),
        "{e:?}"
    );
}

#[test]
fn malformed_reflection_is_an_error_naming_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n};\n", 2, "has no GENERATED_BODY()"),
        ("#include \"X.generated.h\"\nUCLASS()\nclass {\n\tGENERATED_BODY()\n};\n", 3, "cannot parse the class declaration"),
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX\n{\n\tGENERATED_BODY()\n};\n", 2, "has no base class"),
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX : AActor\n{\n\tGENERATED_BODY()\n};\n", 2, "must derive publicly"),
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n\tGENERATED_BODY()\n};\n", 6, "a second GENERATED_BODY()"),
        ("#include \"X.generated.h\"\nclass FX\n{\n\tGENERATED_BODY()\n};\nUENUM()\nenum E { A };\n", 4, "outside a UCLASS"),
        ("#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\n", 2, "no `class IX` in this header"),
        (
            "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintNativeEvent)\n\tvirtual void F();\n};\n",
            10,
            "must not be declared 'virtual'",
        ),
        (
            "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintNativeEvent)\n\tvoid F(float);\n};\n",
            11,
            "parameter 1 (float) has no name",
        ),
        (
            "#include \"X.generated.h\"\nUINTERFACE()\nclass UX : public UInterface\n{\n\tGENERATED_BODY()\n};\nclass IX\n{\n\tGENERATED_BODY()\n\tUFUNCTION(BlueprintImplementableEvent)\n\tvoid F() {}\n};\n",
            10,
            "must not have a body",
        ),
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY(\n\t)\n};\n", 5, "must be on one line"),
        ("#include \"X.generated.h\"\n/* open\nUCLASS()\n", 2, "unterminated /* comment"),
        ("#include \"X.generated.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tUFUNCTION()\n\tint32 = 3;\n\tGENERATED_BODY()\n};\n", 5, "cannot parse the declaration after UFUNCTION"),
    ];
    for (text, line, message) in cases {
        let e = error("X.h", text);
        assert!(
            e.line == *line && e.message.contains(message),
            "{text}\n→ {e:?}, expected line {line}: {message}"
        );
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("standin_uht_{name}_{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a temporary directory");
    dir
}

#[test]
fn write_generated_headers_writes_one_per_reflected_header() {
    let dir = temp_dir("write");
    let (public, out) = (dir.join("Public"), dir.join("gen"));
    fs::create_dir_all(&public).unwrap();
    fs::write(public.join("MyActor.h"), ACTOR).unwrap();
    fs::write(public.join("Plain.h"), "#pragma once\nstruct FPlain {};\n").unwrap();
    fs::write(public.join("Notes.txt"), "UCLASS()").unwrap();
    write_generated_headers(&public, &out);
    let mut written: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["MyActor.generated.h"]);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
#[should_panic(expected = "Bad.h:2: the last #include must be")]
fn write_generated_headers_panics_naming_the_file_and_line() {
    let dir = temp_dir("panic");
    fs::write(dir.join("Bad.h"), "#pragma once\n#include \"CoreMinimal.h\"\nUCLASS()\nclass AX : public AActor\n{\n\tGENERATED_BODY()\n};\n").unwrap();
    write_generated_headers(&dir, &dir.join("gen"));
}

/// The plugin's own headers go through (whatever shape they have now).
#[test]
fn the_glue_headers_are_understood() {
    let public =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("unreal_glue/Source/CarlaServerGlue/Public");
    let dir = temp_dir("glue");
    write_generated_headers(&public, &dir);
    for header in [
        "CarlaServerActor",
        "CarlaVehicleControl",
        "RayCastLidar",
        "SafeDistanceSensor",
        "SceneCaptureCameraActor",
    ] {
        let text = fs::read_to_string(dir.join(format!("{header}.generated.h"))).unwrap();
        assert!(
            text.contains(&format!("#define CURRENT_FILE_ID FID_{header}_h")),
            "{header}: {text}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}
