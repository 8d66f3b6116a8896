// Stand-in for the parts of Unreal's Engine/CoreUObject modules the glue
// uses: UObject, actors and their tick, scene/primitive/box components with
// attachment, UWorld with a small analytic physics scene (oriented boxes:
// line traces, overlaps, bounds) and TActorIterator. Members whose names
// start with `Standin` are not Unreal API: the simulated game loop uses them.
#pragma once

#include "StandinCore.h"

class AActor;
class UActorComponent;
class UPrimitiveComponent;
class USceneComponent;
class UWorld;

// ---------------------------------------------------------------- UObject

class UObject
{
public:
	using ThisClass = UObject;

	UObject();
	virtual ~UObject();
	UObject(const UObject&) = delete;
	UObject& operator=(const UObject&) = delete;

	/** Unique among live objects (Unreal: the index in GUObjectArray). */
	uint32 GetUniqueID() const { return UniqueID; }
	FString GetName() const { return Name; }
	virtual UWorld* GetWorld() const { return nullptr; }

	template <class T>
	T* CreateDefaultSubobject(FName SubobjectName)
	{
		T* Object = new T();
		Object->StandinSetName(SubobjectName.ToString());
		StandinAdopt(Object);
		return Object;
	}

	void StandinSetName(const FString& InName) { Name = InName; }
	/** Takes ownership of Object (a subobject or NewObject with this outer). */
	virtual void StandinAdopt(UObject* Object);

private:
	uint32 UniqueID;
	FString Name;
	std::vector<std::unique_ptr<UObject>> Owned;
};

template <class T>
T* NewObject(UObject* Outer)
{
	check(Outer != nullptr);
	T* Object = new T();
	Outer->StandinAdopt(Object);
	return Object;
}

/** Unreal's Cast: nullptr when From is not a To (here via dynamic_cast). */
template <class To, class From>
To* Cast(From* Object)
{
	return dynamic_cast<To*>(Object);
}

template <class T>
class TSubclassOf
{
public:
	TSubclassOf() = default;
	TSubclassOf(std::nullptr_t) {}
};

class UInterface : public UObject
{
public:
	using Super = UObject;
	using ThisClass = UInterface;
};

// --------------------------------------------------------------- ticking

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

// ------------------------------------------------------------- components

class UActorComponent : public UObject
{
public:
	using Super = UObject;
	using ThisClass = UActorComponent;

	AActor* GetOwner() const { return Owner; }
	UWorld* GetWorld() const override;

	void StandinSetOwner(AActor* InOwner) { Owner = InOwner; }

private:
	AActor* Owner = nullptr;
};

class USceneComponent : public UActorComponent
{
public:
	using Super = UActorComponent;
	using ThisClass = USceneComponent;

	/** World velocity (cm/s), set by whatever moves the component. */
	FVector ComponentVelocity = FVector::ZeroVector;

	FTransform GetComponentTransform() const;
	FVector GetComponentLocation() const { return GetComponentTransform().GetLocation(); }
	FRotator GetComponentRotation() const { return GetComponentTransform().Rotator(); }
	FVector GetComponentVelocity() const { return ComponentVelocity; }
	FTransform GetRelativeTransform() const { return Relative; }
	USceneComponent* GetAttachParent() const { return Parent; }

	/** Constructor-time attachment (keeps the relative transform). */
	void SetupAttachment(USceneComponent* InParent) { Parent = InParent; }
	bool AttachToComponent(USceneComponent* InParent, const FAttachmentTransformRules& Rules, FName SocketName = NAME_None);

	void SetRelativeLocation(const FVector& Location) { Relative.SetLocation(Location); }
	void SetRelativeLocationAndRotation(const FVector& Location, const FRotator& Rotation)
	{
		Relative = FTransform(Rotation, Location);
	}
	void SetWorldTransform(const FTransform& World);
	void SetWorldLocation(const FVector& Location)
	{
		SetWorldTransform(FTransform(GetComponentRotation(), Location));
	}
	void SetWorldLocationAndRotation(const FVector& Location, const FRotator& Rotation)
	{
		SetWorldTransform(FTransform(Rotation, Location));
	}
	void SetHiddenInGame(bool bNewHidden) { bHiddenInGame = bNewHidden; }
	bool bHiddenInGame = false;

private:
	USceneComponent* Parent = nullptr;
	FTransform Relative;
};

class UPrimitiveComponent : public USceneComponent
{
public:
	using Super = USceneComponent;
	using ThisClass = UPrimitiveComponent;

	/** Custom-depth stencil value (CARLA: the semantic tag). */
	int32 CustomDepthStencilValue = 0;
	bool bRenderCustomDepth = false;

	void SetCustomDepthStencilValue(int32 Value) { CustomDepthStencilValue = Value; }
	void SetRenderCustomDepth(bool bValue) { bRenderCustomDepth = bValue; }
	void SetGenerateOverlapEvents(bool bValue) { bGenerateOverlapEvents = bValue; }
	bool GetGenerateOverlapEvents() const { return bGenerateOverlapEvents; }
	/** Known profiles: BlockAll, BlockAllDynamic (block traces), OverlapAll,
	 *  OverlapAllDynamic (overlaps only), NoCollision. Others abort. */
	void SetCollisionProfileName(FName Profile, bool bUpdateOverlaps = true);
	FName GetCollisionProfileName() const { return Profile; }

	/** Actors (other than the owner) with a component overlapping this one;
	 *  answered from the scene now (Unreal: from the last overlap update). */
	void GetOverlappingActors(TSet<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter = nullptr) const;

	bool StandinBlocksTraces() const;
	bool StandinOverlaps() const;
	/** The oriented box of this shape, if it has one. */
	virtual bool StandinBox(FTransform& World, FVector& Extent) const;

private:
	bool bGenerateOverlapEvents = true;
	FName Profile = FName(TEXT("BlockAllDynamic"));
};

class UBoxComponent : public UPrimitiveComponent
{
public:
	using Super = UPrimitiveComponent;
	using ThisClass = UBoxComponent;

	void SetBoxExtent(const FVector& InExtent, bool bUpdateOverlaps = true);
	FVector GetUnscaledBoxExtent() const { return Extent; }
	FVector GetScaledBoxExtent() const { return Extent; }
	bool StandinBox(FTransform& World, FVector& OutExtent) const override;

private:
	FVector Extent = FVector(32.0, 32.0, 32.0);
};

// ----------------------------------------------------------------- actors

class AActor : public UObject
{
public:
	using Super = UObject;
	using ThisClass = AActor;

	AActor() = default;

	FActorTickFunction PrimaryActorTick;

	UWorld* GetWorld() const override { return World; }
	AActor* GetOwner() const { return Owner; }
	void SetOwner(AActor* NewOwner) { Owner = NewOwner; }
	USceneComponent* GetRootComponent() const { return RootComponent; }
	bool SetRootComponent(USceneComponent* Component);

	FTransform GetActorTransform() const;
	FVector GetActorLocation() const { return GetActorTransform().GetLocation(); }
	FRotator GetActorRotation() const { return GetActorTransform().Rotator(); }
	FVector GetActorForwardVector() const { return GetActorRotation().Vector(); }
	FVector GetVelocity() const;
	bool SetActorTransform(const FTransform& NewTransform);
	bool SetActorLocation(const FVector& NewLocation);
	bool SetActorRotation(const FRotator& NewRotation);
	bool SetActorLocationAndRotation(const FVector& NewLocation, const FRotator& NewRotation);
	/** Axis-aligned world bounds of the primitive components (own ones only). */
	void GetActorBounds(bool bOnlyCollidingComponents, FVector& Origin, FVector& BoxExtent, bool bIncludeFromChildActors = false) const;
	void AttachToActor(AActor* ParentActor, const FAttachmentTransformRules& Rules, FName SocketName = NAME_None);
	AActor* GetAttachParentActor() const;

	virtual void Tick(float DeltaSeconds);
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason);

	/** Unreal's entry points: they check that overrides called Super. */
	void DispatchBeginPlay();
	void RouteEndPlay(const EEndPlayReason::Type EndPlayReason);
	bool HasActorBegunPlay() const { return bBegunPlay; }

	void StandinAdopt(UObject* Object) override;
	void StandinPlace(UWorld* InWorld, const FTransform& Transform);
	const TArray<UActorComponent*>& StandinComponents() const { return Components; }

protected:
	virtual void BeginPlay();

	USceneComponent* RootComponent = nullptr;

private:
	UWorld* World = nullptr;
	AActor* Owner = nullptr;
	TArray<UActorComponent*> Components;
	bool bBegunPlay = false;
	bool bSuperBeginPlayCalled = false;
	bool bSuperEndPlayCalled = false;
};

class APlayerStart : public AActor
{
public:
	using Super = AActor;
	using ThisClass = APlayerStart;
	APlayerStart();
};

// -------------------------------------------------------------- collision

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

	AActor* GetActor() const { return Actor; }
	UPrimitiveComponent* GetComponent() const { return Component; }

	AActor* Actor = nullptr;
	UPrimitiveComponent* Component = nullptr;
};

// ------------------------------------------------------------------ world

struct FActorSpawnParameters
{
	FName Name;
	AActor* Owner = nullptr;
};

class UWorld
{
public:
	explicit UWorld(const FString& InMapName) : MapName(InMapName) {}
	~UWorld();
	UWorld(const UWorld&) = delete;
	UWorld& operator=(const UWorld&) = delete;

	template <class T>
	T* SpawnActor(const FVector& Location, const FRotator& Rotation, const FActorSpawnParameters& Params = FActorSpawnParameters())
	{
		T* Actor = new T();
		StandinAddActor(Actor, FTransform(Rotation, Location), Params);
		return Actor;
	}

	/** Seconds of simulation since play began. */
	double GetTimeSeconds() const { return TimeSeconds; }
	float GetDeltaSeconds() const { return DeltaSeconds; }
	FString GetMapName() const { return MapName; }

	/** Closest blocking hit along Start → End (boxes whose profile blocks
	 *  traces; boxes containing Start are not hit). */
	bool LineTraceSingleByChannel(FHitResult& OutHit, const FVector& Start, const FVector& End, ECollisionChannel TraceChannel,
		const FCollisionQueryParams& Params = FCollisionQueryParams::DefaultQueryParam) const;

	/** BeginPlay on every actor, in spawn order (later spawns begin at once). */
	void StandinBeginPlay();
	/** Advances the clock, then ticks the actors by tick group, then spawn order. */
	void StandinTick(float InDeltaSeconds);
	/** EndPlay on every actor, in reverse spawn order. */
	void StandinEndPlay();
	const TArray<AActor*>& StandinActors() const { return ActorList; }

private:
	void StandinAddActor(AActor* Actor, const FTransform& Transform, const FActorSpawnParameters& Params);

	FString MapName;
	double TimeSeconds = 0.0;
	float DeltaSeconds = 0.0f;
	bool bBegunPlay = false;
	std::vector<std::unique_ptr<AActor>> Owned;
	TArray<AActor*> ActorList;
};

/** Actors of class T in World, in spawn order. */
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
		const TArray<AActor*>& Actors = World->StandinActors();
		for (; Index < Actors.Num(); ++Index)
		{
			if (T* Match = Cast<T>(Actors[Index]))
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
