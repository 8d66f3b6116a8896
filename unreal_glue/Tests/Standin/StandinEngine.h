// Stand-in for the parts of Unreal's Engine module the glue uses: actors
// (ticking, spawning, destruction) and their scene/primitive/box components
// (attachment, teleports, simple rigid-body velocities), UWorld with a small
// analytic physics scene (oriented boxes: line traces, overlaps, bounds) and
// TActorIterator. Members whose names start with `Standin` are not Unreal
// API: the simulated game loop uses them. See README.md.
#pragma once

#include "StandinObject.h"

#include <functional>
#include <type_traits>

class AActor;
class APawn;
class UActorComponent;
class UPrimitiveComponent;
class USceneComponent;
class UWorld;
class FComponentInstanceDataCache;

/** Aborts unless the world may change now: on the game thread and not
 *  during a ParallelFor (defined with ParallelFor). */
void StandinCheckWorldMutation(const char* What);

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
	/** Seconds between ticks (0: every frame); the tick gets the time since
	 * the last one, as UE's tick interval does. */
	float TickInterval = 0.0f;
	/** Stand-in only: game time since the last tick. */
	float StandinSinceTick = 0.0f;

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

bool StandinIsGameParallelForWorker();

/** Unreal's channels: 8 engine ones, then the trace channels a project
 *  names in its DefaultEngine.ini (`+DefaultChannelResponses=(Channel=
 *  ECC_GameTraceChannel2, DefaultResponse=ECR_Block, bTraceType=True,
 *  Name="SensorTrace")`; the stand-in: StandinDefineChannel). */
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
	ECC_EngineTraceChannel1,
	ECC_EngineTraceChannel2,
	ECC_EngineTraceChannel3,
	ECC_EngineTraceChannel4,
	ECC_EngineTraceChannel5,
	ECC_EngineTraceChannel6,
	ECC_GameTraceChannel1,
	ECC_GameTraceChannel2,
	ECC_GameTraceChannel3,
	ECC_GameTraceChannel4,
	ECC_GameTraceChannel5,
	ECC_GameTraceChannel6,
	ECC_GameTraceChannel7,
	ECC_GameTraceChannel8,
	ECC_GameTraceChannel9,
	ECC_GameTraceChannel10,
	ECC_GameTraceChannel11,
	ECC_GameTraceChannel12,
	ECC_GameTraceChannel13,
	ECC_GameTraceChannel14,
	ECC_GameTraceChannel15,
	ECC_GameTraceChannel16,
	ECC_GameTraceChannel17,
	ECC_GameTraceChannel18,
	ECC_MAX,
};

enum ECollisionResponse
{
	ECR_Ignore,
	ECR_Overlap,
	ECR_Block,
	ECR_MAX,
};

/** The project's collision settings: channel names (Unreal's
 *  UCollisionProfile, read from the ini). */
class UCollisionProfile
{
public:
	static UCollisionProfile* Get();
	/** The channel's name: the engine's ("Visibility", ...) or the one the
	 *  project gave a game channel; NAME_None for an unused one. */
	FName ReturnChannelNameFromContainerIndex(int32 ContainerIndex) const;
};

/** Stand-in only: what the project's ini would say. A game channel named
 *  Name whose response is Default in every profile except those listed
 *  with StandinEditProfile (Unreal's +EditProfiles). */
void StandinDefineChannel(ECollisionChannel Channel, const TCHAR* Name, ECollisionResponse Default);
void StandinEditProfile(const TCHAR* Profile, ECollisionChannel Channel, ECollisionResponse Response);

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
	AActor* GetActor() const
	{
		if (StandinIsGameParallelForWorker())
			STANDIN_FATAL("FHitResult::GetActor() on a ParallelFor worker: in UE 5 it resolves the hit's object handle "
						  "and may spawn a light-weight-instance actor (a world change off the game thread); keep "
						  "GetComponent() there and ask for actors on the game thread");
		return Actor;
	}
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

/** AActor::OnDestroyed's type. */
DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(FActorDestroyedSignature, AActor*, DestroyedActor);

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
	/** Called once registered (the physics state is created then). */
	virtual void StandinOnRegister() {}

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
	/** Known profiles, with Unreal's default responses: BlockAll,
	 *  BlockAllDynamic, Vehicle (block every channel), Pawn (ignores
	 *  Visibility), CharacterMesh (ignores Pawn, Vehicle and Visibility),
	 *  OverlapAll, OverlapAllDynamic (overlap every channel), NoCollision.
	 *  A project's game channel answers its default response unless the
	 *  profile was edited for it. Others abort. */
	void SetCollisionProfileName(FName InCollisionProfileName, bool bUpdateOverlaps = true);
	ECollisionResponse GetCollisionResponseToChannel(ECollisionChannel Channel) const;
	/** Overrides the profile's response for this component. */
	void SetCollisionResponseToChannel(ECollisionChannel Channel, ECollisionResponse NewResponse);
	FName GetCollisionProfileName() const { return StandinProfile; }
	bool IsCollisionEnabled() const;

	/** Actors (other than the owner) with a component whose oriented box
	 *  overlaps this one's (strictly); answered from the scene now. */
	void GetOverlappingActors(TSet<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter = nullptr) const;
	void GetOverlappingActors(TArray<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter = nullptr) const;

	// Rigid body. Only a root component with a box may simulate (set in the
	// constructor, it takes effect when the actor spawns); moving it keeps
	// its velocity unless the move is a ResetPhysics teleport; the world
	// integrates it between TG_PrePhysics and TG_StartPhysics.
	void SetSimulatePhysics(bool bSimulate);
	bool IsSimulatingPhysics(FName BoneName = NAME_None) const;
	/** Ignored unless the body simulates (a kinematic body has no velocity). */
	void SetPhysicsLinearVelocity(FVector NewVel, bool bAddToCurrent = false, FName BoneName = NAME_None);
	FVector GetPhysicsLinearVelocity(FName BoneName = NAME_None);
	void SetPhysicsAngularVelocityInDegrees(FVector NewAngVel, bool bAddToCurrent = false, FName BoneName = NAME_None);
	FVector GetPhysicsAngularVelocityInDegrees(FName BoneName = NAME_None) const;
	void SetNotifyRigidBodyCollision(bool bNewNotifyRigidBodyCollision);
	FVector GetComponentVelocity() const override;

	/** Blocks Channel (collision enabled, response Block). */
	bool StandinBlocks(ECollisionChannel Channel) const;
	/** Blocks world-dynamic bodies (spawn encroachment). */
	bool StandinBlocksTraces() const { return StandinBlocks(ECC_WorldDynamic); }
	bool StandinOverlaps() const;
	/** The oriented box of this registered shape, if it has one. */
	virtual bool StandinBox(FTransform& World, FVector& Extent) const;
	void StandinOnTeleport(ETeleportType Teleport) override;
	void StandinOnRegister() override;

private:
	bool bGenerateOverlapEvents = true;
	FName StandinProfile = FName(TEXT("BlockAllDynamic"));
	FVector StandinLinearVelocity = FVector::ZeroVector;
	FVector StandinAngularVelocityDeg = FVector::ZeroVector;
	/** Per-component overrides (ECR_MAX: the profile's). */
	uint8 StandinResponses[ECC_MAX] = {};
	bool bStandinHasOverrides = false;
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
	/** Broadcast by Destroy, after EndPlay. */
	FActorDestroyedSignature OnDestroyed;

	UWorld* GetWorld() const override { return StandinWorld; }
	AActor* GetOwner() const { return Owner; }
	void SetOwner(AActor* NewOwner) { Owner = NewOwner; }
	APawn* GetInstigator() const { return Instigator; }
	void SetInstigator(APawn* InInstigator) { Instigator = InInstigator; }
	USceneComponent* GetRootComponent() const
	{
		StandinCheckAlive("GetRootComponent");
		return RootComponent;
	}
	bool SetRootComponent(USceneComponent* Component);
	bool ActorHasTag(FName Tag) const
	{
		StandinCheckAlive("ActorHasTag");
		return !Tag.IsNone() && Tags.Contains(Tag);
	}
	void SetActorTickEnabled(bool bEnabled) { PrimaryActorTick.SetTickFunctionEnable(bEnabled); }
	void SetActorTickInterval(float TickInterval) { PrimaryActorTick.TickInterval = TickInterval; }
	float GetActorTickInterval() const { return PrimaryActorTick.TickInterval; }
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

/** A delegate handle (Unreal's FDelegateHandle). */
class FDelegateHandle
{
public:
	FDelegateHandle() = default;
	explicit FDelegateHandle(uint64 InId) : Id(InId) {}
	bool IsValid() const { return Id != 0; }
	void Reset() { Id = 0; }
	bool operator==(const FDelegateHandle& Other) const { return Id == Other.Id; }
	uint64 StandinId() const { return Id; }

private:
	uint64 Id = 0;
};

/** UWorld's OnActorSpawned (a native multicast delegate: AActor*). */
class FOnActorSpawned
{
public:
	/** Bound to an object's method; not called once the object is gone. */
	class FDelegate
	{
	public:
		template <class UserClass>
		static FDelegate CreateUObject(UserClass* Object, void (UserClass::*Method)(AActor*))
		{
			check(Object != nullptr && Method != nullptr);
			FDelegate Delegate;
			const TWeakObjectPtr<UserClass> Weak(Object);
			Delegate.Call = [Weak, Method](AActor* Actor) {
				if (UserClass* Target = Weak.Get())
					(Target->*Method)(Actor);
			};
			return Delegate;
		}
		std::function<void(AActor*)> Call;
	};
};

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

	/** Called for every actor spawned from now on, at the end of SpawnActor
	 *  (before FinishSpawning for a deferred spawn). */
	FDelegateHandle AddOnActorSpawnedHandler(const FOnActorSpawned::FDelegate& InHandler);
	void RemoveOnActorSpawnedHandler(FDelegateHandle InHandle);

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
	/** A garbage-collection point: every destroyed actor (and its
	 *  components) is freed; stale raw pointers to them abort on use. */
	int32 StandinCollectGarbage();

private:
	AActor* StandinAddActor(AActor* Actor, const FTransform& Transform, const FActorSpawnParameters& Params);
	static void StandinCheckSpawnClass(const UClass* Class, const UClass* Expected);
	void StandinStepPhysics(float FrameDelta);
	void StandinStepBodies(float Dt);

	FString MapName;
	double TimeSeconds = 0.0;
	float DeltaSeconds = 0.0f;
	bool bBegunPlay = false;
	std::vector<std::unique_ptr<AActor>> Owned;
	TArray<AActor*> AllActors;
	TArray<AActor*> ActorList;
	std::vector<std::pair<uint64, FOnActorSpawned::FDelegate>> SpawnHandlers;
	uint64 NextHandlerId = 1;
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

// ------------------------------------------------------- physics settings

/** Unreal's project physics settings (Engine.ini [/Script/Engine.PhysicsSettings]),
 *  with the engine's defaults: each frame simulates at most
 *  MaxPhysicsDeltaTime; substepping cuts it into steps. */
class UPhysicsSettings : public UObject
{
	STANDIN_CLASS(UPhysicsSettings, UObject)

public:
	static UPhysicsSettings* Get();
	float MaxPhysicsDeltaTime = 1.0f / 30.0f;
	bool bSubstepping = false;
	float MaxSubstepDeltaTime = 1.0f / 60.0f;
	int32 MaxSubsteps = 6;
};

/** Stand-in only: simulated physics time since start, and the substeps of
 *  the last frame. */
double StandinPhysicsSimulatedSeconds();
int32 StandinPhysicsSubstepsLastFrame();

// ------------------------------------------------------ stand-in controls

/** As the physics engine would on contact: if Self's root primitive has
 *  bNotifyRigidBodyCollision, calls Self->NotifyHit then broadcasts
 *  Self->OnActorHit(Self, Other, NormalImpulse, Hit) with Hit naming Other
 *  and its root primitive. One side only: call it for each actor hit. */
void StandinNotifyHit(AActor* Self, AActor* Other, const FVector& NormalImpulse);
/** Leaves Actor's Tick out of the watchdog (an actor allowed to wait for a
 *  client, e.g. the server actor in synchronous mode). */
void StandinWatchdogExempt(AActor* Actor);
/** (StandinIsGameParallelForWorker, declared above: whether the calling
 *  thread is a worker of a ParallelFor launched from the game thread,
 *  where line traces are legal.) */
