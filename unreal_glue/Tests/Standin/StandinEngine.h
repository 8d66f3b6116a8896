// Stand-in for the parts of Unreal's CoreUObject/Engine modules the glue
// uses: UObject/UClass, interfaces, dynamic multicast delegates, actors
// (ticking, spawning, destruction) and their scene/primitive/box components
// (attachment, teleports, simple rigid-body velocities), UWorld with a small
// analytic physics scene (oriented boxes: line traces, overlaps, bounds) and
// TActorIterator. Members whose names start with `Standin` are not Unreal
// API: the simulated game loop uses them. See README.md.
#pragma once

#include "StandinCore.h"

#include <functional>
#include <type_traits>

class AActor;
class APawn;
class UActorComponent;
class UPrimitiveComponent;
class USceneComponent;
class UWorld;
class FComponentInstanceDataCache;

// ------------------------------------------------------------------ UClass

/** A class's identity: its name (without the A/U/F prefix) and its parent.
 *  Reflected glue classes get one from the mini-UHT, engine classes from
 *  STANDIN_CLASS. Not a UObject here. */
class UClass
{
public:
	UClass(const TCHAR* InCppName, UClass* InSuperClass);
	UClass(const UClass&) = delete;
	UClass& operator=(const UClass&) = delete;

	FString GetName() const { return Name; }
	UClass* GetSuperClass() const { return SuperClass; }
	bool IsChildOf(const UClass* SomeBase) const;
	template <class T>
	bool IsChildOf() const
	{
		return IsChildOf(T::StaticClass());
	}

private:
	FString Name;
	UClass* SuperClass;
};

/** A USTRUCT's identity (StaticStruct()). */
class UScriptStruct
{
public:
	explicit UScriptStruct(const TCHAR* InCppName);
	UScriptStruct(const UScriptStruct&) = delete;
	UScriptStruct& operator=(const UScriptStruct&) = delete;
	FString GetName() const { return Name; }

private:
	FString Name;
};

/** What the mini-UHT's GENERATED_BODY declares, for the engine's own classes. */
#define STANDIN_CLASS(ClassName, BaseName)                                     \
public:                                                                        \
	using Super = BaseName;                                                    \
	using ThisClass = ClassName;                                               \
	static UClass* StaticClass()                                               \
	{                                                                          \
		static UClass StandinClass(TEXT(#ClassName), BaseName::StaticClass()); \
		return &StandinClass;                                                  \
	}                                                                          \
	UClass* StandinGetClass() const override { return StaticClass(); }         \
	static bool StandinIsUFunction(const TCHAR* InName) { return BaseName::StandinIsUFunction(InName); }

// ----------------------------------------------------------------- UObject

enum EObjectFlags
{
	RF_NoFlags = 0x0,
	RF_Public = 0x1,
	RF_Standalone = 0x2,
	RF_Transient = 0x40,
};

/** Stand-in internals: objects are only constructed inside these scopes
 *  (NewObject, SpawnActor, CreateDefaultSubobject). */
void StandinBeginConstruction();
void StandinEndConstruction();
bool StandinIsConstructing();
/** Aborts unless the world may change now: on the game thread and not
 *  during a ParallelFor (defined with ParallelFor). */
void StandinCheckWorldMutation(const char* What);

class UObject
{
public:
	using ThisClass = UObject;

	/** Aborts unless created by NewObject / SpawnActor / CreateDefaultSubobject. */
	UObject();
	virtual ~UObject();
	UObject(const UObject&) = delete;
	UObject& operator=(const UObject&) = delete;

	static UClass* StaticClass();
	UClass* GetClass() const { return StandinGetClass(); }
	/** RTTI: right for every class, reflected or not. */
	template <class T>
	bool IsA() const
	{
		return dynamic_cast<const T*>(this) != nullptr;
	}
	/** Through GetClass(): a class without GENERATED_BODY (the simulated
	 *  game's) reports its nearest reflected base. */
	bool IsA(const UClass* SomeBase) const { return GetClass()->IsChildOf(SomeBase); }
	/** T is a UINTERFACE's U-class (UFoo): whether this implements IFoo. */
	template <class T>
	bool Implements() const
	{
		using InterfaceType = typename T::StandinInterface;
		return dynamic_cast<const InterfaceType*>(this) != nullptr;
	}

	/** Unique among live objects (Unreal: the index in GUObjectArray). */
	uint32 GetUniqueID() const { return StandinUniqueID; }
	/** The name given at creation, else `<C++ class without A/U>_<UniqueID>`. */
	FString GetName() const;
	UObject* GetOuter() const { return StandinOuter; }
	virtual UWorld* GetWorld() const { return nullptr; }
	/** True once destroyed (Unreal 5 deprecates it for IsValid). */
	bool IsPendingKill() const { return bStandinPendingKill; }

	/** Only legal inside a constructor (Unreal aborts too). */
	template <class T>
	T* CreateDefaultSubobject(FName SubobjectName, bool bTransient = false);

	virtual UClass* StandinGetClass() const { return StaticClass(); }
	static bool StandinIsUFunction(const TCHAR* /*Name*/) { return false; }
	void StandinSetName(const FString& InName) { StandinObjectName = InName; }
	/** Takes ownership of Object (a subobject or NewObject with this outer). */
	virtual void StandinAdopt(UObject* Object);
	virtual void StandinMarkPendingKill() { bStandinPendingKill = true; }

private:
	uint32 StandinUniqueID;
	FString StandinObjectName;
	UObject* StandinOuter = nullptr;
	bool bStandinPendingKill = false;
	std::vector<std::unique_ptr<UObject>> StandinOwned;
};

/** Unreal's IsValid: not null and not destroyed. */
inline bool IsValid(const UObject* Test)
{
	return Test != nullptr && !Test->IsPendingKill();
}

template <class T>
T* StandinConstruct()
{
	StandinBeginConstruction();
	T* Object = new T();
	StandinEndConstruction();
	return Object;
}

template <class T>
T* UObject::CreateDefaultSubobject(FName SubobjectName, bool /*bTransient*/)
{
	if (!StandinIsConstructing())
	{
		STANDIN_FATAL("CreateDefaultSubobject(%s) outside a constructor: Unreal aborts (\"CreateDefaultSubobject can only be "
					  "used inside of UObject Constructors\"); use NewObject + RegisterComponent after construction",
			SubobjectName.ToString().StandinStd().c_str());
	}
	T* Object = StandinConstruct<T>();
	Object->StandinSetName(SubobjectName.ToString());
	StandinAdopt(Object);
	return Object;
}

/** Outer of objects created without one; lives until the process exits. */
class UPackage : public UObject
{
	STANDIN_CLASS(UPackage, UObject)
};
UPackage* GetTransientPackage();

template <class T>
T* NewObject(UObject* Outer, FName Name, EObjectFlags /*Flags*/ = RF_NoFlags)
{
	check(Outer != nullptr);
	T* Object = StandinConstruct<T>();
	if (!Name.IsNone())
		Object->StandinSetName(Name.ToString());
	Outer->StandinAdopt(Object);
	return Object;
}

template <class T>
T* NewObject(UObject* Outer = (UObject*)GetTransientPackage())
{
	return NewObject<T>(Outer, NAME_None);
}

/** Class must be T's own (the stand-in cannot create a subclass it does not know). */
template <class T>
T* NewObject(UObject* Outer, const UClass* Class, FName Name = NAME_None, EObjectFlags Flags = RF_NoFlags)
{
	if (Class != T::StaticClass())
		STANDIN_FATAL("NewObject<T>(Outer, Class): the stand-in can only create T itself");
	return NewObject<T>(Outer, Name, Flags);
}

/** Unreal's Cast: nullptr when Src is null or not a To (here via dynamic_cast,
 *  which also covers interfaces: Cast<IFoo>(Object)). */
template <class To, class From>
To* Cast(From* Src)
{
	return Src != nullptr ? dynamic_cast<To*>(Src) : nullptr;
}

template <class To, class From>
To* CastChecked(From* Src)
{
	To* Result = Cast<To>(Src);
	if (Result == nullptr)
		STANDIN_FATAL("CastChecked failed (null or not of the target class)");
	return Result;
}

template <class T>
class TSubclassOf
{
public:
	TSubclassOf() = default;
	TSubclassOf(UClass* From) : Class(From) {}
	/** nullptr unless the class is T or a child of T, as Unreal's. */
	UClass* Get() const { return Class != nullptr && Class->IsChildOf(T::StaticClass()) ? Class : nullptr; }
	operator UClass*() const { return Get(); }
	UClass* operator*() const { return Get(); }
	UClass* operator->() const { return Get(); }

private:
	UClass* Class = nullptr;
};

/** An object and its interface pointer (Cast at construction, as Unreal's:
 *  any UObject converts, the interface is null if it does not implement it). */
template <class InterfaceType>
class TScriptInterface
{
public:
	TScriptInterface() = default;
	TScriptInterface(std::nullptr_t) {}
	template <class U, typename = typename std::enable_if<std::is_convertible<U*, UObject*>::value>::type>
	TScriptInterface(U* Source) : ObjectPointer(Source), InterfacePointer(Cast<InterfaceType>(static_cast<UObject*>(Source)))
	{
	}
	UObject* GetObject() const { return ObjectPointer; }
	InterfaceType* GetInterface() const { return InterfacePointer; }
	InterfaceType* operator->() const { return InterfacePointer; }
	explicit operator bool() const { return InterfacePointer != nullptr; }

private:
	UObject* ObjectPointer = nullptr;
	InterfaceType* InterfacePointer = nullptr;
};

class UInterface : public UObject
{
	STANDIN_CLASS(UInterface, UObject)
};

class IInterface
{
protected:
	virtual ~IInterface() = default;

public:
	typedef UInterface UClassType;
};

/** The mini-UHT's Execute_ functions: Object must implement the interface
 *  (Unreal: check(O->GetClass()->ImplementsInterface(...))). */
template <class InterfaceType>
InterfaceType* StandinInterfaceFor(UObject* Object, const char* Function)
{
	InterfaceType* Interface = Cast<InterfaceType>(Object);
	if (Interface == nullptr)
		STANDIN_FATAL("%s on %s: the object is null or does not implement the interface (Unreal: check failed)", Function,
			Object != nullptr ? Object->GetName().StandinStd().c_str() : "null");
	return Interface;
}

template <class InterfaceType>
const InterfaceType* StandinInterfaceFor(const UObject* Object, const char* Function)
{
	return StandinInterfaceFor<InterfaceType>(const_cast<UObject*>(Object), Function);
}

// --------------------------------------------------------- engine enums

enum ETickingGroup
{
	TG_PrePhysics,
	TG_StartPhysics,
	TG_DuringPhysics,
	TG_EndPhysics,
	TG_PostPhysics,
	TG_PostUpdateWork,
	TG_LastDemotable,
	TG_NewlySpawned,
};

struct FActorTickFunction
{
	bool bCanEverTick = false;
	bool bStartWithTickEnabled = true;
	ETickingGroup TickGroup = TG_PrePhysics;

	void SetTickFunctionEnable(bool bInEnabled) { bEnabled = bInEnabled; }
	bool IsTickFunctionEnabled() const { return bEnabled; }

private:
	friend class AActor;
	bool bEnabled = false; // set from bStartWithTickEnabled at BeginPlay
};

namespace EEndPlayReason
{
	enum Type
	{
		Destroyed,
		LevelTransition,
		EndPlayInEditor,
		RemovedFromWorld,
		Quit,
	};
}

struct FAttachmentTransformRules
{
	bool bKeepWorld;
	static const FAttachmentTransformRules KeepRelativeTransform;
	static const FAttachmentTransformRules KeepWorldTransform;
};

struct FDetachmentTransformRules
{
	bool bKeepWorld;
	static const FDetachmentTransformRules KeepRelativeTransform;
	static const FDetachmentTransformRules KeepWorldTransform;
};

/** How a move treats a simulating body: None and TeleportPhysics keep its
 *  velocity, ResetPhysics zeroes its linear and angular velocity. */
enum class ETeleportType : uint8
{
	None,
	TeleportPhysics,
	ResetPhysics,
};

enum class ESpawnActorCollisionHandlingMethod : uint8
{
	Undefined,
	AlwaysSpawn,
	AdjustIfPossibleButAlwaysSpawn,
	AdjustIfPossibleButDontSpawnIfColliding,
	DontSpawnIfColliding,
};

enum ECollisionChannel
{
	ECC_WorldStatic,
	ECC_WorldDynamic,
	ECC_Pawn,
	ECC_Visibility,
	ECC_Camera,
	ECC_PhysicsBody,
	ECC_Vehicle,
	ECC_Destructible,
};

struct FHitResult
{
	bool bBlockingHit = false;
	bool bStartPenetrating = false;
	/** Fraction of the trace, [0, 1]. */
	float Time = 1.0f;
	/** Distance from TraceStart to Location, cm. */
	float Distance = 0.0f;
	FVector Location;
	FVector ImpactPoint;
	FVector Normal;
	FVector ImpactNormal;
	FVector TraceStart;
	FVector TraceEnd;

	bool IsValidBlockingHit() const { return bBlockingHit && !bStartPenetrating; }
	/** The only accessors code for both UE 4.26 and UE 5 can use (4.26 has
	 *  weak-pointer members, UE 5 an object handle). */
	AActor* GetActor() const { return Actor; }
	UPrimitiveComponent* GetComponent() const { return Component; }

	void StandinSetHit(AActor* InActor, UPrimitiveComponent* InComponent)
	{
		Actor = InActor;
		Component = InComponent;
	}

private:
	AActor* Actor = nullptr;
	UPrimitiveComponent* Component = nullptr;
};

struct FCollisionQueryParams
{
	FCollisionQueryParams() = default;
	FCollisionQueryParams(FName InTraceTag, bool bInTraceComplex = false, const AActor* InIgnoreActor = nullptr)
		: TraceTag(InTraceTag), bTraceComplex(bInTraceComplex)
	{
		AddIgnoredActor(InIgnoreActor);
	}

	static const FCollisionQueryParams DefaultQueryParam;

	FName TraceTag;
	bool bTraceComplex = false;

	void AddIgnoredActor(const AActor* Actor)
	{
		if (Actor != nullptr)
			Ignored.AddUnique(Actor);
	}
	bool StandinIgnores(const AActor* Actor) const { return Ignored.Contains(Actor); }

private:
	TArray<const AActor*> Ignored;
};

// -------------------------------------------------------------- delegates

template <typename T>
struct TStandinIdentity
{
	using Type = T;
};

/** "Name" from TEXT("&AClass::Name"), as Unreal's STATIC_FUNCTION_FNAME. */
FName StandinTrimmedMemberFunctionName(const TCHAR* InMacroFunctionName);
#define STATIC_FUNCTION_FNAME(str) StandinTrimmedMemberFunctionName(str)

/** A dynamic multicast delegate: bindings are (object, UFUNCTION name).
 *  Binding a reflected class's method that is not a UFUNCTION, or the same
 *  pair twice, aborts (Unreal: an ensure, and the binding never fires);
 *  Broadcast skips destroyed objects and calls on a copy of the list. */
template <typename... ParamTypes>
class TStandinDynamicMulticastDelegate
{
public:
	template <class UserClass>
	using TMethodPtr = void (UserClass::*)(ParamTypes...);

	template <class UserClass>
	void __Internal_AddDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type InFunc, FName InFunctionName)
	{
		if (StandinFind(InUserObject, InFunctionName) >= 0)
			STANDIN_FATAL("AddDynamic: %s is already bound to this delegate on %s (Unreal: ensure; use AddUniqueDynamic)",
				InFunctionName.ToString().StandinStd().c_str(), InUserObject->GetName().StandinStd().c_str());
		StandinAdd(InUserObject, InFunc, InFunctionName);
	}

	template <class UserClass>
	void __Internal_AddUniqueDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type InFunc, FName InFunctionName)
	{
		if (StandinFind(InUserObject, InFunctionName) < 0)
			StandinAdd(InUserObject, InFunc, InFunctionName);
	}

	template <class UserClass>
	void __Internal_RemoveDynamic(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type /*InFunc*/, FName InFunctionName)
	{
		const int32 Index = StandinFind(InUserObject, InFunctionName);
		if (Index >= 0)
			Bindings.erase(Bindings.begin() + Index);
	}

	template <class UserClass>
	bool __Internal_IsAlreadyBound(UserClass* InUserObject, typename TStandinIdentity<TMethodPtr<UserClass>>::Type /*InFunc*/, FName InFunctionName) const
	{
		return StandinFind(InUserObject, InFunctionName) >= 0;
	}

	void RemoveAll(const UObject* Object)
	{
		for (size_t Index = Bindings.size(); Index-- > 0;)
			if (Bindings[Index].Object == Object)
				Bindings.erase(Bindings.begin() + static_cast<std::ptrdiff_t>(Index));
	}
	void Clear() { Bindings.clear(); }
	bool IsBound() const { return !Bindings.empty(); }

	void Broadcast(ParamTypes... Params) const
	{
		const std::vector<FBinding> Copy = Bindings;
		for (const FBinding& Binding : Copy)
			if (IsValid(Binding.Object))
				Binding.Call(Params...);
	}

private:
	struct FBinding
	{
		UObject* Object;
		FName FunctionName;
		std::function<void(ParamTypes...)> Call;
	};

	int32 StandinFind(const UObject* Object, const FName& FunctionName) const
	{
		for (size_t Index = 0; Index < Bindings.size(); ++Index)
			if (Bindings[Index].Object == Object && Bindings[Index].FunctionName == FunctionName)
				return static_cast<int32>(Index);
		return -1;
	}

	template <class UserClass>
	void StandinAdd(UserClass* InUserObject, TMethodPtr<UserClass> InFunc, FName InFunctionName)
	{
		static_assert(std::is_base_of<UObject, UserClass>::value, "dynamic delegates bind UObjects");
		check(InUserObject != nullptr && InFunc != nullptr);
		// A class the mini-UHT saw (its GENERATED_BODY declared ThisClass)
		// knows its UFUNCTIONs; the simulated game's classes are not checked.
		if constexpr (std::is_same<typename UserClass::ThisClass, UserClass>::value)
		{
			if (!UserClass::StandinIsUFunction(*InFunctionName.ToString()))
				STANDIN_FATAL("AddDynamic: %s is not a UFUNCTION of %s: Unreal cannot bind it (\"Unable to bind delegate\")",
					InFunctionName.ToString().StandinStd().c_str(), UserClass::StaticClass()->GetName().StandinStd().c_str());
		}
		Bindings.push_back(FBinding{InUserObject, InFunctionName,
			[InUserObject, InFunc](ParamTypes... Params) { (InUserObject->*InFunc)(Params...); }});
	}

	std::vector<FBinding> Bindings;
};

#define AddDynamic(UserObject, FuncName) __Internal_AddDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define AddUniqueDynamic(UserObject, FuncName) __Internal_AddUniqueDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define RemoveDynamic(UserObject, FuncName) __Internal_RemoveDynamic(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))
#define IsAlreadyBound(UserObject, FuncName) __Internal_IsAlreadyBound(UserObject, FuncName, STATIC_FUNCTION_FNAME(TEXT(#FuncName)))

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE(DelegateName) class DelegateName : public TStandinDynamicMulticastDelegate<>{}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(DelegateName, T1, N1)                            \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1>                                   \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(DelegateName, T1, N1, T2, N2)                   \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2>                               \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_ThreeParams(DelegateName, T1, N1, T2, N2, T3, N3)         \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2, T3>                           \
	{                                                                                                  \
	}
#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_FourParams(DelegateName, T1, N1, T2, N2, T3, N3, T4, N4) \
	class DelegateName : public TStandinDynamicMulticastDelegate<T1, T2, T3, T4>                       \
	{                                                                                                  \
	}

/** AActor::OnActorHit's type (Unreal declares it sparse; same binding API). */
DECLARE_DYNAMIC_MULTICAST_DELEGATE_FourParams(FActorHitSignature, AActor*, SelfActor, AActor*, OtherActor, FVector, NormalImpulse,
	const FHitResult&, Hit);

// ------------------------------------------------------------- components

class UActorComponent : public UObject
{
	STANDIN_CLASS(UActorComponent, UObject)

public:
	AActor* GetOwner() const { return StandinOwner; }
	UWorld* GetWorld() const override;

	/** Components made in the owner's constructor are registered when it is
	 *  spawned; one made later with NewObject must be registered (until
	 *  then it takes no part in traces, overlaps, bounds or captures). */
	void RegisterComponent();
	void UnregisterComponent();
	bool IsRegistered() const { return bRegistered; }
	void DestroyComponent(bool bPromoteChildren = false);

	void StandinSetOwner(AActor* InOwner) { StandinOwner = InOwner; }

private:
	AActor* StandinOwner = nullptr;
	bool bRegistered = false;
};

class USceneComponent : public UActorComponent
{
	STANDIN_CLASS(USceneComponent, UActorComponent)

public:
	/** World velocity (cm/s) of a component moved by game code. */
	FVector ComponentVelocity = FVector::ZeroVector;

	FTransform GetComponentTransform() const;
	FVector GetComponentLocation() const { return GetComponentTransform().GetLocation(); }
	FRotator GetComponentRotation() const { return GetComponentTransform().Rotator(); }
	FVector GetForwardVector() const { return GetComponentRotation().Vector(); }
	/** ComponentVelocity, or the body's velocity if it simulates physics. */
	virtual FVector GetComponentVelocity() const { return ComponentVelocity; }
	FTransform GetRelativeTransform() const { return StandinRelative; }
	FVector GetRelativeLocation() const { return StandinRelative.GetLocation(); }
	FRotator GetRelativeRotation() const { return StandinRelative.Rotator(); }
	USceneComponent* GetAttachParent() const { return StandinAttachParent; }

	/** Constructor-time attachment (keeps the relative transform). */
	void SetupAttachment(USceneComponent* InParent, FName InSocketName = NAME_None);
	bool AttachToComponent(USceneComponent* InParent, const FAttachmentTransformRules& Rules, FName SocketName = NAME_None);
	void DetachFromComponent(const FDetachmentTransformRules& Rules);

	// Moves: bSweep = true aborts (sweeps are not modelled); OutSweepHitResult
	// is reset; Teleport applies to this component's simulating body.
	void SetWorldTransform(const FTransform& NewTransform, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetWorldLocation(FVector NewLocation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetWorldRotation(FRotator NewRotation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetWorldLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetRelativeLocation(FVector NewLocation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetRelativeRotation(FRotator NewRotation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	void SetRelativeLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep = false,
		FHitResult* OutSweepHitResult = nullptr, ETeleportType Teleport = ETeleportType::None);
	void SetHiddenInGame(bool bNewHidden, bool bPropagateToChildren = false);
	bool bHiddenInGame = false;

	/** Stand-in internals: the move itself (checked, teleport applied). */
	void StandinMove(const FTransform& NewRelative, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport, const char* What);
	virtual void StandinOnTeleport(ETeleportType /*Teleport*/) {}

private:
	USceneComponent* StandinAttachParent = nullptr;
	FTransform StandinRelative;
};

/** Unreal's per-body physics settings (the flags it reads). */
struct FBodyInstance
{
	bool bSimulatePhysics = false;
	/** "Simulation Generates Hit Events": without it OnActorHit is not broadcast. */
	bool bNotifyRigidBodyCollision = false;
};

class UPrimitiveComponent : public USceneComponent
{
	STANDIN_CLASS(UPrimitiveComponent, USceneComponent)

public:
	/** Custom-depth stencil value (CARLA: the semantic tag). */
	int32 CustomDepthStencilValue = 0;
	bool bRenderCustomDepth = false;
	FBodyInstance BodyInstance;

	void SetCustomDepthStencilValue(int32 Value) { CustomDepthStencilValue = Value; }
	void SetRenderCustomDepth(bool bValue) { bRenderCustomDepth = bValue; }
	void SetGenerateOverlapEvents(bool bValue) { bGenerateOverlapEvents = bValue; }
	bool GetGenerateOverlapEvents() const { return bGenerateOverlapEvents; }
	/** Known profiles: BlockAll, BlockAllDynamic (block traces), OverlapAll,
	 *  OverlapAllDynamic (overlaps only), NoCollision. Others abort. */
	void SetCollisionProfileName(FName InCollisionProfileName, bool bUpdateOverlaps = true);
	FName GetCollisionProfileName() const { return StandinProfile; }
	bool IsCollisionEnabled() const;

	/** Actors (other than the owner) with a component whose oriented box
	 *  overlaps this one's (strictly); answered from the scene now. */
	void GetOverlappingActors(TSet<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter = nullptr) const;
	void GetOverlappingActors(TArray<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter = nullptr) const;

	// Rigid body. Only a root component with a box may simulate; moving it
	// keeps its velocity unless the move is a ResetPhysics teleport; the
	// world integrates it between TG_PrePhysics and TG_StartPhysics.
	void SetSimulatePhysics(bool bSimulate);
	bool IsSimulatingPhysics(FName BoneName = NAME_None) const;
	/** Ignored unless the body simulates (a kinematic body has no velocity). */
	void SetPhysicsLinearVelocity(FVector NewVel, bool bAddToCurrent = false, FName BoneName = NAME_None);
	FVector GetPhysicsLinearVelocity(FName BoneName = NAME_None);
	void SetPhysicsAngularVelocityInDegrees(FVector NewAngVel, bool bAddToCurrent = false, FName BoneName = NAME_None);
	FVector GetPhysicsAngularVelocityInDegrees(FName BoneName = NAME_None) const;
	void SetNotifyRigidBodyCollision(bool bNewNotifyRigidBodyCollision);
	FVector GetComponentVelocity() const override;

	bool StandinBlocksTraces() const;
	bool StandinOverlaps() const;
	/** The oriented box of this registered shape, if it has one. */
	virtual bool StandinBox(FTransform& World, FVector& Extent) const;
	void StandinOnTeleport(ETeleportType Teleport) override;

private:
	bool bGenerateOverlapEvents = true;
	FName StandinProfile = FName(TEXT("BlockAllDynamic"));
	FVector StandinLinearVelocity = FVector::ZeroVector;
	FVector StandinAngularVelocityDeg = FVector::ZeroVector;
};

class UBoxComponent : public UPrimitiveComponent
{
	STANDIN_CLASS(UBoxComponent, UPrimitiveComponent)

public:
	void SetBoxExtent(FVector InExtent, bool bUpdateOverlaps = true);
	FVector GetUnscaledBoxExtent() const { return BoxExtent; }
	FVector GetScaledBoxExtent() const { return BoxExtent; }
	bool StandinBox(FTransform& World, FVector& OutExtent) const override;

protected:
	FVector BoxExtent = FVector(32.0, 32.0, 32.0);
};

// ----------------------------------------------------------------- actors

class AActor : public UObject
{
	STANDIN_CLASS(AActor, UObject)

public:
	AActor() = default;

	FActorTickFunction PrimaryActorTick;
	TArray<FName> Tags;
	/** Broadcast by StandinNotifyHit (when the root primitive notifies rigid-body collisions). */
	FActorHitSignature OnActorHit;

	UWorld* GetWorld() const override { return StandinWorld; }
	AActor* GetOwner() const { return Owner; }
	void SetOwner(AActor* NewOwner) { Owner = NewOwner; }
	APawn* GetInstigator() const { return Instigator; }
	void SetInstigator(APawn* InInstigator) { Instigator = InInstigator; }
	USceneComponent* GetRootComponent() const { return RootComponent; }
	bool SetRootComponent(USceneComponent* Component);
	bool ActorHasTag(FName Tag) const { return !Tag.IsNone() && Tags.Contains(Tag); }
	void SetActorTickEnabled(bool bEnabled) { PrimaryActorTick.SetTickFunctionEnable(bEnabled); }
	bool IsActorTickEnabled() const { return PrimaryActorTick.IsTickFunctionEnabled(); }

	/** The components of class T this actor owns (the array is reset first). */
	template <class T>
	void GetComponents(TArray<T*>& OutComponents, bool /*bIncludeFromChildActors*/ = false) const
	{
		OutComponents.Reset();
		for (UActorComponent* Component : StandinOwnedComponents)
			if (T* Match = Cast<T>(Component))
				OutComponents.Add(Match);
	}
	template <class T>
	T* FindComponentByClass() const
	{
		for (UActorComponent* Component : StandinOwnedComponents)
			if (T* Match = Cast<T>(Component))
				return Match;
		return nullptr;
	}

	FTransform GetActorTransform() const;
	FVector GetActorLocation() const { return GetActorTransform().GetLocation(); }
	FRotator GetActorRotation() const { return GetActorTransform().Rotator(); }
	FVector GetActorForwardVector() const { return GetActorRotation().Vector(); }
	FVector GetActorRightVector() const { return GetActorRotation().StandinAxes().Axis[1]; }
	FVector GetActorUpVector() const { return GetActorRotation().StandinAxes().Axis[2]; }
	/** The root's GetComponentVelocity (physics velocity if it simulates). */
	FVector GetVelocity() const;
	bool SetActorTransform(const FTransform& NewTransform, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	bool SetActorLocation(const FVector& NewLocation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	/** Unreal's shape: no sweep parameters on SetActorRotation. */
	bool SetActorRotation(FRotator NewRotation, ETeleportType Teleport = ETeleportType::None);
	bool SetActorLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep = false, FHitResult* OutSweepHitResult = nullptr,
		ETeleportType Teleport = ETeleportType::None);
	/** Axis-aligned world bounds of the registered primitive components (own ones only). */
	void GetActorBounds(bool bOnlyCollidingComponents, FVector& Origin, FVector& BoxExtent, bool bIncludeFromChildActors = false) const;
	/** The registered primitives' boxes (colliding ones unless bNonColliding)
	 *  in the actor's own frame. */
	FBox CalculateComponentsBoundingBoxInLocalSpace(bool bNonColliding = false, bool bIncludeFromChildActors = false) const;
	void AttachToActor(AActor* ParentActor, const FAttachmentTransformRules& Rules, FName SocketName = NAME_None);
	void DetachFromActor(const FDetachmentTransformRules& Rules);
	AActor* GetAttachParentActor() const;
	/** Actors whose root is attached to one of this actor's components. */
	void GetAttachedActors(TArray<AActor*>& OutActors, bool bResetArray = true) const;

	virtual void Tick(float DeltaSeconds);
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason);
	/** Called before OnActorHit is broadcast. */
	virtual void NotifyHit(UPrimitiveComponent* MyComp, AActor* Other, UPrimitiveComponent* OtherComp, bool bSelfMoved, FVector HitLocation,
		FVector HitNormal, FVector NormalImpulse, const FHitResult& Hit);

	/** EndPlay(Destroyed) once (if play began); children are detached keeping
	 *  their world transform; the actor leaves TActorIterator, ticking,
	 *  traces and overlaps at once; its memory lives until the world dies. */
	bool Destroy(bool bNetForce = false, bool bShouldModifyLevel = true);
	bool IsActorBeingDestroyed() const { return bStandinBeingDestroyed; }
	/** After UWorld::SpawnActorDeferred: places the actor at Transform and
	 *  begins its play if the world's has begun. */
	void FinishSpawning(const FTransform& Transform, bool bIsDefaultTransform = false,
		const FComponentInstanceDataCache* InstanceDataCache = nullptr);

	/** Unreal's entry points: they check that overrides called Super. */
	void DispatchBeginPlay();
	void RouteEndPlay(const EEndPlayReason::Type EndPlayReason);
	bool HasActorBegunPlay() const { return bStandinBegunPlay; }

	void StandinAdopt(UObject* Object) override;
	void StandinMarkPendingKill() override;
	void StandinPlace(UWorld* InWorld, const FTransform& Transform);
	void StandinSetDeferred(bool bInDeferred) { bStandinDeferredSpawn = bInDeferred; }
	bool StandinIsDeferred() const { return bStandinDeferredSpawn; }
	const TArray<UActorComponent*>& StandinComponents() const { return StandinOwnedComponents; }
	void StandinRemoveComponent(UActorComponent* Component) { StandinOwnedComponents.Remove(Component); }
	bool bStandinWatchdogExempt = false;

protected:
	virtual void BeginPlay();

	USceneComponent* RootComponent = nullptr;

private:
	friend class UWorld;
	UWorld* StandinWorld = nullptr;
	AActor* Owner = nullptr;
	APawn* Instigator = nullptr;
	TArray<UActorComponent*> StandinOwnedComponents;
	bool bStandinBegunPlay = false;
	bool bStandinBeginningPlay = false;
	bool bStandinDestroyAfterBeginPlay = false;
	bool bStandinBeingDestroyed = false;
	bool bStandinDeferredSpawn = false;
	bool bStandinSuperBeginPlayCalled = false;
	bool bStandinSuperEndPlayCalled = false;
};

class APawn : public AActor
{
	STANDIN_CLASS(APawn, AActor)
};

class APlayerStart : public AActor
{
	STANDIN_CLASS(APlayerStart, AActor)

public:
	APlayerStart();
};

// ------------------------------------------------------------------ world

struct FActorSpawnParameters
{
	FName Name;
	AActor* Owner = nullptr;
	APawn* Instigator = nullptr;
	/** AdjustIfPossible* are not adjusted: they spawn (or not) as is. */
	ESpawnActorCollisionHandlingMethod SpawnCollisionHandlingOverride = ESpawnActorCollisionHandlingMethod::Undefined;
	/** If true, FinishSpawning must be called (BeginPlay waits for it). */
	bool bDeferConstruction = false;
};

class UWorld
{
public:
	explicit UWorld(const FString& InMapName) : MapName(InMapName) {}
	~UWorld();
	UWorld(const UWorld&) = delete;
	UWorld& operator=(const UWorld&) = delete;

	/** nullptr if DontSpawnIfColliding and a blocking box overlaps. */
	template <class T>
	T* SpawnActor(const FVector& Location, const FRotator& Rotation, const FActorSpawnParameters& Params = FActorSpawnParameters())
	{
		StandinCheckWorldMutation("SpawnActor");
		return static_cast<T*>(StandinAddActor(StandinConstruct<T>(), FTransform(Rotation, Location), Params));
	}
	/** Class must be T's own (the stand-in cannot create Blueprint subclasses). */
	template <class T>
	T* SpawnActor(UClass* Class, const FVector& Location, const FRotator& Rotation, const FActorSpawnParameters& Params = FActorSpawnParameters())
	{
		return SpawnActor<T>(Class, FTransform(Rotation, Location), Params);
	}
	template <class T>
	T* SpawnActor(UClass* Class, const FTransform& Transform, const FActorSpawnParameters& Params = FActorSpawnParameters())
	{
		StandinCheckWorldMutation("SpawnActor");
		StandinCheckSpawnClass(Class, T::StaticClass());
		return static_cast<T*>(StandinAddActor(StandinConstruct<T>(), Transform, Params));
	}
	/** Creates T at Transform with its owner set; no BeginPlay until
	 *  AActor::FinishSpawning. */
	template <class T>
	T* SpawnActorDeferred(UClass* Class, const FTransform& Transform, AActor* Owner = nullptr, APawn* Instigator = nullptr,
		ESpawnActorCollisionHandlingMethod CollisionHandlingOverride = ESpawnActorCollisionHandlingMethod::Undefined)
	{
		StandinCheckWorldMutation("SpawnActorDeferred");
		StandinCheckSpawnClass(Class, T::StaticClass());
		FActorSpawnParameters Params;
		Params.Owner = Owner;
		Params.Instigator = Instigator;
		Params.SpawnCollisionHandlingOverride = CollisionHandlingOverride;
		Params.bDeferConstruction = true;
		return static_cast<T*>(StandinAddActor(StandinConstruct<T>(), Transform, Params));
	}
	bool DestroyActor(AActor* Actor, bool bNetForce = false, bool bShouldModifyLevel = true);

	/** Seconds of simulation since play began. */
	double GetTimeSeconds() const { return TimeSeconds; }
	float GetDeltaSeconds() const { return DeltaSeconds; }
	FString GetMapName() const { return MapName; }
	bool HasBegunPlay() const { return bBegunPlay; }

	/** Closest blocking hit along Start → End (boxes whose profile blocks
	 *  traces; boxes containing Start are not hit). Game thread, or a
	 *  worker of a ParallelFor launched from it. */
	bool LineTraceSingleByChannel(FHitResult& OutHit, const FVector& Start, const FVector& End, ECollisionChannel TraceChannel,
		const FCollisionQueryParams& Params = FCollisionQueryParams::DefaultQueryParam) const;

	/** BeginPlay on every actor, in spawn order (later spawns begin at once). */
	void StandinBeginPlay();
	/** Advances the clock (and FApp's delta), ticks the TG_PrePhysics actors,
	 *  steps the physics (simulating bodies move by their velocity), then
	 *  ticks the other groups; within a group, spawn order. An actor
	 *  destroyed during the frame is not ticked after its destruction. */
	void StandinTick(float InDeltaSeconds);
	/** EndPlay on every live actor, in reverse spawn order. */
	void StandinEndPlay();
	/** Live actors in spawn order. */
	const TArray<AActor*>& StandinActors() const { return ActorList; }
	/** Every actor spawned, destroyed ones included (TActorIterator skips them). */
	const TArray<AActor*>& StandinAllActors() const { return AllActors; }
	void StandinRemoveActor(AActor* Actor);

private:
	AActor* StandinAddActor(AActor* Actor, const FTransform& Transform, const FActorSpawnParameters& Params);
	static void StandinCheckSpawnClass(const UClass* Class, const UClass* Expected);
	void StandinStepPhysics(float Dt);

	FString MapName;
	double TimeSeconds = 0.0;
	float DeltaSeconds = 0.0f;
	bool bBegunPlay = false;
	std::vector<std::unique_ptr<AActor>> Owned;
	TArray<AActor*> AllActors;
	TArray<AActor*> ActorList;
};

/** Live actors of class T in World, in spawn order. */
template <class T>
class TActorIterator
{
public:
	explicit TActorIterator(UWorld* InWorld) : World(InWorld) { Advance(); }
	explicit operator bool() const { return Current != nullptr; }
	T* operator*() const { return Current; }
	T* operator->() const { return Current; }
	TActorIterator& operator++()
	{
		++Index;
		Advance();
		return *this;
	}

private:
	void Advance()
	{
		Current = nullptr;
		if (World == nullptr)
			return;
		const TArray<AActor*>& Actors = World->StandinAllActors();
		for (; Index < Actors.Num(); ++Index)
		{
			T* Match = Cast<T>(Actors[Index]);
			if (Match != nullptr && IsValid(Actors[Index]))
			{
				Current = Match;
				return;
			}
		}
	}

	UWorld* World;
	int32 Index = 0;
	T* Current = nullptr;
};

// ------------------------------------------------------ stand-in controls

/** As the physics engine would on contact: if Self's root primitive has
 *  bNotifyRigidBodyCollision, calls Self->NotifyHit then broadcasts
 *  Self->OnActorHit(Self, Other, NormalImpulse, Hit) with Hit naming Other
 *  and its root primitive. One side only: call it for each actor hit. */
void StandinNotifyHit(AActor* Self, AActor* Other, const FVector& NormalImpulse);
/** Leaves Actor's Tick out of the watchdog (an actor allowed to wait for a
 *  client, e.g. the server actor in synchronous mode). */
void StandinWatchdogExempt(AActor* Actor);
/** Whether the calling thread is a worker of a ParallelFor launched from
 *  the game thread (where line traces are legal). */
bool StandinIsGameParallelForWorker();
