// The stand-in's objects: UClass, UObject, components (attachment, moves,
// teleports, rigid-body state) and actors (play, spawning, destruction).
// The world and its physics queries are in World.cpp. See README.md.
#include "StandinEngine.h"

#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <mutex>
#include <unordered_map>
#include <typeinfo>

// ---------------------------------------------------------------- classes

UClass::UClass(const TCHAR* InCppName, UClass* InSuperClass) : Name(InCppName + (*InCppName != 0 ? 1 : 0)), SuperClass(InSuperClass) {}

bool UClass::IsChildOf(const UClass* SomeBase) const
{
	for (const UClass* Class = this; Class != nullptr; Class = Class->SuperClass)
		if (Class == SomeBase)
			return true;
	return false;
}

UScriptStruct::UScriptStruct(const TCHAR* InCppName) : Name(InCppName + (*InCppName != 0 ? 1 : 0)) {}

FName StandinTrimmedMemberFunctionName(const TCHAR* InMacroFunctionName)
{
	// "&AClass::Function" (or "AClass::Function") → "Function".
	const TCHAR* Name = InMacroFunctionName;
	for (const TCHAR* At = InMacroFunctionName; *At != 0; ++At)
		if (At[0] == u':' && At[1] == u':')
			Name = At + 2;
	if (*Name == u'&')
		++Name;
	return FName(Name);
}

// ---------------------------------------------------------------- objects

namespace
{
	std::atomic<uint32> GNextUniqueID{1000};
	thread_local int32 GConstructionDepth = 0;
}

void StandinBeginConstruction()
{
	++GConstructionDepth;
}

void StandinEndConstruction()
{
	--GConstructionDepth;
}

bool StandinIsConstructing()
{
	return GConstructionDepth > 0;
}

namespace
{
	struct FLiveObjects
	{
		std::mutex Mutex;
		std::unordered_map<uint32, UObject*> ById;
	};
	FLiveObjects& LiveObjects()
	{
		static FLiveObjects* Table = new FLiveObjects(); // outlives static destructors
		return *Table;
	}
}

void StandinRegisterLive(uint32 Id, UObject* Object)
{
	FLiveObjects& Table = LiveObjects();
	std::lock_guard<std::mutex> Lock(Table.Mutex);
	Table.ById[Id] = Object;
}

void StandinUnregisterLive(uint32 Id)
{
	FLiveObjects& Table = LiveObjects();
	std::lock_guard<std::mutex> Lock(Table.Mutex);
	Table.ById.erase(Id);
}

bool StandinIsLive(uint32 Id, bool bEvenIfPendingKill)
{
	FLiveObjects& Table = LiveObjects();
	std::lock_guard<std::mutex> Lock(Table.Mutex);
	const auto Found = Table.ById.find(Id);
	return Found != Table.ById.end() && (bEvenIfPendingKill || !Found->second->IsPendingKill());
}

UObject::UObject() : StandinUniqueID(GNextUniqueID.fetch_add(1))
{
	if (!StandinIsConstructing())
		STANDIN_FATAL("a UObject was created with new or on the stack: Unreal creates them with NewObject, SpawnActor or "
					  "CreateDefaultSubobject");
	StandinRegisterLive(StandinUniqueID, this);
}

UObject::~UObject()
{
	StandinUnregisterLive(StandinUniqueID);
}

void UObject::StandinCollect()
{
	if (bStandinCollected)
		return;
	bStandinCollected = true;
	StandinUnregisterLive(StandinUniqueID);
	for (const std::unique_ptr<UObject>& Owned : StandinOwned)
		Owned->StandinCollect();
}

void UObject::StandinUseAfterCollect(const char* What) const
{
	STANDIN_FATAL("use after free: %s on %s, which garbage collection freed (it was destroyed; a raw pointer that is "
				  "neither a UPROPERTY nor a TWeakObjectPtr kept pointing at it, and Unreal would now read freed memory)",
		What, StandinNameUnchecked().StandinStd().c_str());
}

UClass* UObject::StaticClass()
{
	static UClass Class(TEXT("UObject"), nullptr);
	return &Class;
}

FString UObject::GetName() const
{
	StandinCheckAlive("GetName");
	return StandinNameUnchecked();
}

FString UObject::StandinNameUnchecked() const
{
	if (!StandinObjectName.IsEmpty())
		return StandinObjectName;
	// Unreal's `<Class>_<N>`, from the C++ type (right for classes without
	// GENERATED_BODY too), without the A/U prefix.
	int Status = 0;
	char* Demangled = abi::__cxa_demangle(typeid(*this).name(), nullptr, nullptr, &Status);
	std::string Type = Status == 0 && Demangled != nullptr ? Demangled : "Object";
	std::free(Demangled);
	if (Type.size() > 1 && (Type[0] == 'A' || Type[0] == 'U') && std::isupper(static_cast<unsigned char>(Type[1])))
		Type.erase(0, 1);
	return FString::StandinFromUtf8(Type + "_" + std::to_string(StandinUniqueID));
}

void UObject::StandinAdopt(UObject* Object)
{
	Object->StandinOuter = this;
	StandinOwned.emplace_back(Object);
}

UPackage* GetTransientPackage()
{
	static UPackage* Package = [] {
		UPackage* Created = StandinConstruct<UPackage>();
		Created->StandinSetName(TEXT("/Engine/Transient"));
		return Created;
	}();
	return Package;
}

// ------------------------------------------------------------- components

UWorld* UActorComponent::GetWorld() const
{
	return StandinOwner != nullptr ? StandinOwner->GetWorld() : nullptr;
}

void UActorComponent::RegisterComponent()
{
	check(IsInGameThread());
	if (StandinOwner == nullptr || StandinOwner->GetWorld() == nullptr)
		STANDIN_FATAL("RegisterComponent on %s: its outer is not an actor in a world", GetName().StandinStd().c_str());
	if (bRegistered)
		return;
	bRegistered = true;
	StandinOnRegister();
}

void UActorComponent::UnregisterComponent()
{
	bRegistered = false;
}

void UActorComponent::DestroyComponent(bool /*bPromoteChildren*/)
{
	StandinCheckWorldMutation("UActorComponent::DestroyComponent");
	bRegistered = false;
	StandinMarkPendingKill();
	if (StandinOwner != nullptr)
		StandinOwner->StandinRemoveComponent(this);
}

FTransform USceneComponent::GetComponentTransform() const
{
	return StandinAttachParent != nullptr ? StandinRelative * StandinAttachParent->GetComponentTransform() : StandinRelative;
}

void USceneComponent::SetupAttachment(USceneComponent* InParent, FName /*InSocketName*/)
{
	StandinAttachParent = InParent;
}

bool USceneComponent::AttachToComponent(USceneComponent* InParent, const FAttachmentTransformRules& Rules, FName /*SocketName*/)
{
	StandinCheckWorldMutation("USceneComponent::AttachToComponent");
	for (const USceneComponent* Ancestor = InParent; Ancestor != nullptr; Ancestor = Ancestor->StandinAttachParent)
		if (Ancestor == this)
			STANDIN_FATAL("AttachToComponent: %s would be attached to itself", GetName().StandinStd().c_str());
	const FTransform World = GetComponentTransform();
	StandinAttachParent = InParent;
	if (Rules.bKeepWorld)
		StandinRelative = InParent != nullptr ? World.GetRelativeTransform(InParent->GetComponentTransform()) : World;
	return true;
}

void USceneComponent::DetachFromComponent(const FDetachmentTransformRules& Rules)
{
	StandinCheckWorldMutation("USceneComponent::DetachFromComponent");
	if (StandinAttachParent == nullptr)
		return;
	const FTransform World = GetComponentTransform();
	StandinAttachParent = nullptr;
	if (Rules.bKeepWorld)
		StandinRelative = World;
}

void USceneComponent::StandinMove(const FTransform& NewRelative, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport, const char* What)
{
	StandinCheckWorldMutation(What);
	if (bSweep)
		STANDIN_FATAL("%s with bSweep = true: sweeps are not modelled by the stand-in", What);
	if (OutSweepHitResult != nullptr)
		*OutSweepHitResult = FHitResult();
	StandinRelative = NewRelative;
	StandinOnTeleport(Teleport);
}

void USceneComponent::SetWorldTransform(const FTransform& NewTransform, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	StandinMove(StandinAttachParent != nullptr ? NewTransform.GetRelativeTransform(StandinAttachParent->GetComponentTransform()) : NewTransform,
		bSweep, OutSweepHitResult,
		Teleport, "SetWorldTransform");
}

void USceneComponent::SetWorldLocation(FVector NewLocation, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	SetWorldTransform(FTransform(GetComponentRotation(), NewLocation), bSweep, OutSweepHitResult, Teleport);
}

void USceneComponent::SetWorldRotation(FRotator NewRotation, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	SetWorldTransform(FTransform(NewRotation, GetComponentLocation()), bSweep, OutSweepHitResult, Teleport);
}

void USceneComponent::SetWorldLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep, FHitResult* OutSweepHitResult,
	ETeleportType Teleport)
{
	SetWorldTransform(FTransform(NewRotation, NewLocation), bSweep, OutSweepHitResult, Teleport);
}

void USceneComponent::SetRelativeLocation(FVector NewLocation, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	StandinMove(FTransform(StandinRelative.Rotator(), NewLocation), bSweep, OutSweepHitResult, Teleport, "SetRelativeLocation");
}

void USceneComponent::SetRelativeRotation(FRotator NewRotation, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	StandinMove(FTransform(NewRotation, StandinRelative.GetLocation()), bSweep, OutSweepHitResult, Teleport, "SetRelativeRotation");
}

void USceneComponent::SetRelativeLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep, FHitResult* OutSweepHitResult,
	ETeleportType Teleport)
{
	StandinMove(FTransform(NewRotation, NewLocation), bSweep, OutSweepHitResult, Teleport, "SetRelativeLocationAndRotation");
}

void USceneComponent::SetHiddenInGame(bool bNewHidden, bool /*bPropagateToChildren*/)
{
	bHiddenInGame = bNewHidden;
}

const FAttachmentTransformRules FAttachmentTransformRules::KeepRelativeTransform{false};
const FAttachmentTransformRules FAttachmentTransformRules::KeepWorldTransform{true};
const FDetachmentTransformRules FDetachmentTransformRules::KeepRelativeTransform{false};
const FDetachmentTransformRules FDetachmentTransformRules::KeepWorldTransform{true};

namespace
{
	struct FChannelConfig
	{
		std::mutex Mutex;
		FName Names[ECC_MAX];
		ECollisionResponse Default[ECC_MAX] = {};
		bool bDefined[ECC_MAX] = {};
		// (profile, channel) -> response, from StandinEditProfile.
		std::vector<std::pair<std::pair<FName, int32>, ECollisionResponse>> Edits;
	};
	FChannelConfig& Channels()
	{
		static FChannelConfig* Config = new FChannelConfig();
		return *Config;
	}

	const char* const EngineChannelNames[] = {"WorldStatic", "WorldDynamic", "Pawn", "Visibility", "Camera", "PhysicsBody", "Vehicle", "Destructible"};

	/** A known profile's response to an engine channel. */
	ECollisionResponse EngineResponse(const FName& Profile, ECollisionChannel Channel)
	{
		if (Profile == FName(TEXT("OverlapAll")) || Profile == FName(TEXT("OverlapAllDynamic")))
			return ECR_Overlap;
		if (Profile == FName(TEXT("Pawn")))
			return Channel == ECC_Visibility ? ECR_Ignore : ECR_Block;
		if (Profile == FName(TEXT("CharacterMesh")))
			return Channel == ECC_Visibility || Channel == ECC_Pawn || Channel == ECC_Vehicle ? ECR_Ignore : ECR_Block;
		return ECR_Block; // BlockAll, BlockAllDynamic, Vehicle
	}
}

void StandinDefineChannel(ECollisionChannel Channel, const TCHAR* Name, ECollisionResponse Default)
{
	check(Channel >= ECC_GameTraceChannel1 && Channel < ECC_MAX);
	FChannelConfig& Config = Channels();
	std::lock_guard<std::mutex> Lock(Config.Mutex);
	Config.Names[Channel] = FName(Name);
	Config.Default[Channel] = Default;
	Config.bDefined[Channel] = true;
}

void StandinEditProfile(const TCHAR* Profile, ECollisionChannel Channel, ECollisionResponse Response)
{
	FChannelConfig& Config = Channels();
	std::lock_guard<std::mutex> Lock(Config.Mutex);
	Config.Edits.push_back({{FName(Profile), static_cast<int32>(Channel)}, Response});
}

UCollisionProfile* UCollisionProfile::Get()
{
	static UCollisionProfile Profile;
	return &Profile;
}

FName UCollisionProfile::ReturnChannelNameFromContainerIndex(int32 ContainerIndex) const
{
	if (ContainerIndex < 0 || ContainerIndex >= ECC_MAX)
		return NAME_None;
	if (ContainerIndex < 8)
		return FName(EngineChannelNames[ContainerIndex]);
	FChannelConfig& Config = Channels();
	std::lock_guard<std::mutex> Lock(Config.Mutex);
	return Config.bDefined[ContainerIndex] ? Config.Names[ContainerIndex] : NAME_None;
}

void UPrimitiveComponent::SetCollisionProfileName(FName InProfile, bool /*bUpdateOverlaps*/)
{
	static const char* const Known[] = {"BlockAll", "BlockAllDynamic", "OverlapAll", "OverlapAllDynamic", "NoCollision", "Pawn", "CharacterMesh",
		"Vehicle"};
	bool bKnown = false;
	for (const char* Candidate : Known)
		bKnown = bKnown || InProfile == FName(Candidate);
	if (!bKnown)
		STANDIN_FATAL("unknown collision profile %s (the stand-in knows BlockAll, BlockAllDynamic, OverlapAll, OverlapAllDynamic, "
					  "NoCollision, Pawn, CharacterMesh, Vehicle)",
			InProfile.ToString().StandinStd().c_str());
	StandinProfile = InProfile;
	bStandinHasOverrides = false;
}

ECollisionResponse UPrimitiveComponent::GetCollisionResponseToChannel(ECollisionChannel Channel) const
{
	check(Channel >= 0 && Channel < ECC_MAX);
	if (bStandinHasOverrides && StandinResponses[Channel] != ECR_MAX)
		return static_cast<ECollisionResponse>(StandinResponses[Channel]);
	if (Channel < ECC_EngineTraceChannel1)
		return EngineResponse(StandinProfile, Channel);
	FChannelConfig& Config = Channels();
	std::lock_guard<std::mutex> Lock(Config.Mutex);
	if (!Config.bDefined[Channel])
		return ECR_Ignore; // an unused channel: nothing answers it
	for (const auto& Edit : Config.Edits)
		if (Edit.first.first == StandinProfile && Edit.first.second == static_cast<int32>(Channel))
			return Edit.second;
	return Config.Default[Channel];
}

void UPrimitiveComponent::SetCollisionResponseToChannel(ECollisionChannel Channel, ECollisionResponse NewResponse)
{
	check(Channel >= 0 && Channel < ECC_MAX);
	if (!bStandinHasOverrides)
	{
		for (uint8& Response : StandinResponses)
			Response = ECR_MAX;
		bStandinHasOverrides = true;
	}
	StandinResponses[Channel] = static_cast<uint8>(NewResponse);
}

bool UPrimitiveComponent::IsCollisionEnabled() const
{
	return StandinProfile != FName(TEXT("NoCollision"));
}

bool UPrimitiveComponent::StandinBlocks(ECollisionChannel Channel) const
{
	return IsCollisionEnabled() && GetCollisionResponseToChannel(Channel) == ECR_Block;
}

bool UPrimitiveComponent::StandinOverlaps() const
{
	return bGenerateOverlapEvents && IsCollisionEnabled();
}

bool UPrimitiveComponent::StandinBox(FTransform& /*World*/, FVector& /*Extent*/) const
{
	return false;
}

void UPrimitiveComponent::SetSimulatePhysics(bool bSimulate)
{
	StandinCheckWorldMutation("SetSimulatePhysics");
	BodyInstance.bSimulatePhysics = bSimulate;
	StandinLinearVelocity = FVector::ZeroVector;
	StandinAngularVelocityDeg = FVector::ZeroVector;
	if (IsRegistered())
		StandinOnRegister(); // a body exists: check it and start simulating now
}

void UPrimitiveComponent::StandinOnRegister()
{
	if (!BodyInstance.bSimulatePhysics)
		return;
	FTransform World;
	FVector Extent;
	if (GetOwner()->GetRootComponent() != this || !StandinBox(World, Extent))
		STANDIN_FATAL("%s simulates physics: the stand-in simulates root box components only", GetName().StandinStd().c_str());
	if (GetAttachParent() != nullptr)
		DetachFromComponent(FDetachmentTransformRules::KeepWorldTransform); // a simulating body is not attached
}

bool UPrimitiveComponent::IsSimulatingPhysics(FName /*BoneName*/) const
{
	return BodyInstance.bSimulatePhysics && IsRegistered();
}

void UPrimitiveComponent::SetPhysicsLinearVelocity(FVector NewVel, bool bAddToCurrent, FName /*BoneName*/)
{
	StandinCheckWorldMutation("SetPhysicsLinearVelocity");
	if (IsSimulatingPhysics())
		StandinLinearVelocity = bAddToCurrent ? StandinLinearVelocity + NewVel : NewVel;
}

FVector UPrimitiveComponent::GetPhysicsLinearVelocity(FName /*BoneName*/)
{
	return IsSimulatingPhysics() ? StandinLinearVelocity : FVector::ZeroVector;
}

void UPrimitiveComponent::SetPhysicsAngularVelocityInDegrees(FVector NewAngVel, bool bAddToCurrent, FName /*BoneName*/)
{
	StandinCheckWorldMutation("SetPhysicsAngularVelocityInDegrees");
	if (IsSimulatingPhysics())
		StandinAngularVelocityDeg = bAddToCurrent ? StandinAngularVelocityDeg + NewAngVel : NewAngVel;
}

FVector UPrimitiveComponent::GetPhysicsAngularVelocityInDegrees(FName /*BoneName*/) const
{
	return IsSimulatingPhysics() ? StandinAngularVelocityDeg : FVector::ZeroVector;
}

void UPrimitiveComponent::SetNotifyRigidBodyCollision(bool bNewNotifyRigidBodyCollision)
{
	BodyInstance.bNotifyRigidBodyCollision = bNewNotifyRigidBodyCollision;
}

FVector UPrimitiveComponent::GetComponentVelocity() const
{
	return IsSimulatingPhysics() ? StandinLinearVelocity : USceneComponent::GetComponentVelocity();
}

void UPrimitiveComponent::StandinOnTeleport(ETeleportType Teleport)
{
	if (Teleport == ETeleportType::ResetPhysics)
	{
		StandinLinearVelocity = FVector::ZeroVector;
		StandinAngularVelocityDeg = FVector::ZeroVector;
	}
}

void UBoxComponent::SetBoxExtent(FVector InExtent, bool /*bUpdateOverlaps*/)
{
	StandinCheckWorldMutation("SetBoxExtent");
	BoxExtent = InExtent;
}

bool UBoxComponent::StandinBox(FTransform& World, FVector& OutExtent) const
{
	if (!IsRegistered() || IsPendingKill())
		return false;
	World = GetComponentTransform();
	OutExtent = BoxExtent;
	return true;
}

// ----------------------------------------------------------------- actors

bool AActor::SetRootComponent(USceneComponent* Component)
{
	RootComponent = Component;
	return true;
}

void AActor::StandinAdopt(UObject* Object)
{
	UObject::StandinAdopt(Object);
	if (UActorComponent* Component = Cast<UActorComponent>(Object))
	{
		Component->StandinSetOwner(this);
		StandinOwnedComponents.Add(Component);
	}
}

void AActor::StandinMarkPendingKill()
{
	UObject::StandinMarkPendingKill();
	for (UActorComponent* Component : StandinOwnedComponents)
	{
		Component->UnregisterComponent();
		Component->StandinMarkPendingKill();
	}
}

void AActor::StandinPlace(UWorld* InWorld, const FTransform& Transform)
{
	StandinWorld = InWorld;
	if (RootComponent != nullptr)
		RootComponent->SetWorldTransform(Transform);
	for (UActorComponent* Component : StandinOwnedComponents)
		Component->RegisterComponent(); // the constructor's components
}

FTransform AActor::GetActorTransform() const
{
	StandinCheckAlive("GetActorTransform");
	return RootComponent != nullptr ? RootComponent->GetComponentTransform() : FTransform();
}

FVector AActor::GetVelocity() const
{
	return RootComponent != nullptr ? RootComponent->GetComponentVelocity() : FVector::ZeroVector;
}

bool AActor::SetActorTransform(const FTransform& NewTransform, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	if (RootComponent == nullptr)
		return false;
	RootComponent->SetWorldTransform(NewTransform, bSweep, OutSweepHitResult, Teleport);
	return true;
}

bool AActor::SetActorLocation(const FVector& NewLocation, bool bSweep, FHitResult* OutSweepHitResult, ETeleportType Teleport)
{
	return SetActorTransform(FTransform(GetActorRotation(), NewLocation), bSweep, OutSweepHitResult, Teleport);
}

bool AActor::SetActorRotation(FRotator NewRotation, ETeleportType Teleport)
{
	return SetActorTransform(FTransform(NewRotation, GetActorLocation()), false, nullptr, Teleport);
}

bool AActor::SetActorLocationAndRotation(FVector NewLocation, FRotator NewRotation, bool bSweep, FHitResult* OutSweepHitResult,
	ETeleportType Teleport)
{
	return SetActorTransform(FTransform(NewRotation, NewLocation), bSweep, OutSweepHitResult, Teleport);
}

void AActor::GetActorBounds(bool bOnlyCollidingComponents, FVector& Origin, FVector& BoxExtent, bool /*bIncludeFromChildActors*/) const
{
	FBox Bounds(ForceInit);
	for (const UActorComponent* Component : StandinOwnedComponents)
	{
		const UPrimitiveComponent* Primitive = Cast<const UPrimitiveComponent>(Component);
		FTransform Box;
		FVector Extent;
		if (Primitive != nullptr && (!bOnlyCollidingComponents || Primitive->IsCollisionEnabled()) && Primitive->StandinBox(Box, Extent))
			Bounds += FBox(-Extent, Extent).TransformBy(Box);
	}
	if (!Bounds.IsValid)
	{
		Origin = GetActorLocation();
		BoxExtent = FVector::ZeroVector;
		return;
	}
	Bounds.GetCenterAndExtents(Origin, BoxExtent);
}

FBox AActor::CalculateComponentsBoundingBoxInLocalSpace(bool bNonColliding, bool /*bIncludeFromChildActors*/) const
{
	FBox Bounds(ForceInit);
	const FTransform ActorToWorld = GetActorTransform();
	for (const UActorComponent* Component : StandinOwnedComponents)
	{
		const UPrimitiveComponent* Primitive = Cast<const UPrimitiveComponent>(Component);
		FTransform Box;
		FVector Extent;
		if (Primitive != nullptr && (bNonColliding || Primitive->IsCollisionEnabled()) && Primitive->StandinBox(Box, Extent))
			Bounds += FBox(-Extent, Extent).TransformBy(Box.GetRelativeTransform(ActorToWorld));
	}
	return Bounds;
}

void AActor::AttachToActor(AActor* ParentActor, const FAttachmentTransformRules& Rules, FName SocketName)
{
	check(ParentActor != nullptr && RootComponent != nullptr && ParentActor->RootComponent != nullptr);
	RootComponent->AttachToComponent(ParentActor->RootComponent, Rules, SocketName);
}

void AActor::DetachFromActor(const FDetachmentTransformRules& Rules)
{
	if (RootComponent != nullptr)
		RootComponent->DetachFromComponent(Rules);
}

AActor* AActor::GetAttachParentActor() const
{
	const USceneComponent* Parent = RootComponent != nullptr ? RootComponent->GetAttachParent() : nullptr;
	return Parent != nullptr ? Parent->GetOwner() : nullptr;
}

void AActor::GetAttachedActors(TArray<AActor*>& OutActors, bool bResetArray) const
{
	if (bResetArray)
		OutActors.Reset();
	if (StandinWorld == nullptr)
		return;
	for (AActor* Other : StandinWorld->StandinActors())
	{
		const USceneComponent* Root = Other->GetRootComponent();
		const USceneComponent* Parent = Root != nullptr ? Root->GetAttachParent() : nullptr;
		if (Other != this && Parent != nullptr && Parent->GetOwner() == this)
			OutActors.AddUnique(Other);
	}
}

void AActor::BeginPlay()
{
	bStandinSuperBeginPlayCalled = true;
}

void AActor::Tick(float /*DeltaSeconds*/) {}

void AActor::EndPlay(const EEndPlayReason::Type /*EndPlayReason*/)
{
	bStandinSuperEndPlayCalled = true;
}

void AActor::NotifyHit(UPrimitiveComponent* /*MyComp*/, AActor* /*Other*/, UPrimitiveComponent* /*OtherComp*/, bool /*bSelfMoved*/,
	FVector /*HitLocation*/, FVector /*HitNormal*/, FVector /*NormalImpulse*/, const FHitResult& /*Hit*/)
{
}

void AActor::DispatchBeginPlay()
{
	check(!bStandinBegunPlay && !IsPendingKill());
	bStandinBegunPlay = true;
	bStandinBeginningPlay = true;
	PrimaryActorTick.SetTickFunctionEnable(PrimaryActorTick.bCanEverTick && PrimaryActorTick.bStartWithTickEnabled);
	BeginPlay();
	bStandinBeginningPlay = false;
	if (!bStandinSuperBeginPlayCalled)
		STANDIN_FATAL("%s did not call Super::BeginPlay (Unreal: \"failed to route BeginPlay\")", GetName().StandinStd().c_str());
	if (bStandinDestroyAfterBeginPlay)
		Destroy(); // Unreal defers a Destroy called during BeginPlay to here
}

void AActor::RouteEndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (!bStandinBegunPlay)
		return;
	EndPlay(EndPlayReason);
	if (!bStandinSuperEndPlayCalled)
		STANDIN_FATAL("%s did not call Super::EndPlay (Unreal: \"failed to route EndPlay\")", GetName().StandinStd().c_str());
	bStandinBegunPlay = false;
}

bool AActor::Destroy(bool bNetForce, bool bShouldModifyLevel)
{
	if (IsPendingKill() || bStandinBeingDestroyed)
		return true;
	if (StandinWorld == nullptr)
		STANDIN_FATAL("Destroy on %s, which is not in a world", GetName().StandinStd().c_str());
	return StandinWorld->DestroyActor(this, bNetForce, bShouldModifyLevel);
}

bool UWorld::DestroyActor(AActor* Actor, bool /*bNetForce*/, bool /*bShouldModifyLevel*/)
{
	check(Actor != nullptr && Actor->GetWorld() == this);
	StandinCheckWorldMutation("AActor::Destroy");
	if (Actor->IsPendingKill() || Actor->IsActorBeingDestroyed())
		return true;
	if (Actor->bStandinBeginningPlay)
	{
		Actor->bStandinDestroyAfterBeginPlay = true;
		return true;
	}
	Actor->bStandinBeingDestroyed = true;
	Actor->RouteEndPlay(EEndPlayReason::Destroyed);
	TArray<AActor*> Children;
	Actor->GetAttachedActors(Children);
	for (AActor* Child : Children)
		Child->DetachFromActor(FDetachmentTransformRules::KeepWorldTransform);
	Actor->DetachFromActor(FDetachmentTransformRules::KeepWorldTransform);
	Actor->StandinMarkPendingKill();
	StandinRemoveActor(Actor);
	Actor->OnDestroyed.Broadcast(Actor); // Broadcast skips destroyed listeners
	return true;
}

void AActor::FinishSpawning(const FTransform& Transform, bool /*bIsDefaultTransform*/, const FComponentInstanceDataCache* /*InstanceDataCache*/)
{
	check(IsInGameThread());
	if (!bStandinDeferredSpawn)
		STANDIN_FATAL("FinishSpawning on %s, which was not spawned deferred or already finished", GetName().StandinStd().c_str());
	bStandinDeferredSpawn = false;
	if (RootComponent != nullptr)
		RootComponent->SetWorldTransform(Transform);
	if (StandinWorld != nullptr && StandinWorld->HasBegunPlay() && !IsPendingKill())
		DispatchBeginPlay();
}

APlayerStart::APlayerStart()
{
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("PlayerStartRoot"));
}
