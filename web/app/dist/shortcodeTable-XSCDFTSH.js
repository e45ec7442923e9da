import"./chunk-22MT47GS.js";var _=`
23-fe0f-20e3 hash
7-fe0f-20e3 keycap_star asterisk
6-fe0f-20e3 zero
-fe0f-20e3 one
-fe0f-20e3 two
-fe0f-20e3 three
-fe0f-20e3 four
-fe0f-20e3 five
-fe0f-20e3 six
-fe0f-20e3 seven
-fe0f-20e3 eight
-fe0f-20e3 nine
70 copyright
5 registered
1f8e bangbang
d interrobang
d9 tm
17 information_source
5b left_right_arrow
 arrow_up_down
 arrow_upper_left
 arrow_upper_right
 arrow_lower_right
 arrow_lower_left
10 leftwards_arrow_with_hook
 arrow_right_hook
170 watch
 hourglass
d keyboard
a7 eject eject_button
1a fast_forward
 rewind
 arrow_double_up
 arrow_double_down
 black_right_pointing_double_triangle_with_vertical_bar next_track_button
 black_left_pointing_double_triangle_with_vertical_bar previous_track_button
 black_right_pointing_triangle_with_double_vertical_bar play_or_pause_button
 alarm_clock
 stopwatch
 timer_clock
 hourglass_flowing_sand
5 double_vertical_bar pause_button
 black_square_for_stop stop_button
 black_circle_for_record record_button
c8 m
e8 black_small_square
 white_small_square
b arrow_forward
a arrow_backward
3b white_medium_square
 black_medium_square
 white_medium_small_square
 black_medium_small_square
2 sunny
 cloud
 umbrella open_umbrella
 snowman snowman_with_snow
 comet
a phone telephone
3 ballot_box_with_check
3 umbrella_with_rain_drops
 coffee
3 shamrock
5 point_up
3 skull_and_crossbones
2 radioactive_sign radioactive
 biohazard_sign biohazard
3 orthodox_cross
4 star_and_crescent
4 peace_symbol
 yin_yang
9 wheel_of_dharma
 white_frowning_face frowning_face
 relaxed
6 female_sign
2 male_sign
6 aries
 taurus
 gemini
 cancer
 leo
 virgo
 libra
 scorpius
 sagittarius
 capricorn
 aquarius
 pisces
c chess_pawn
 spades
3 clubs
2 hearts
 diamonds
2 hotsprings
13 recycle
3 infinity
 wheelchair
13 hammer_and_pick
 anchor
 crossed_swords
 medical_symbol staff_of_aesculapius
 scales balance_scale
 alembic
2 gear
2 atom_symbol
 fleur_de_lis
4 warning
 zap
6 transgender_symbol
3 white_circle
 black_circle
5 coffin
 funeral_urn
c soccer
 baseball
6 snowman_without_snow
 partly_sunny
3 thunder_cloud_and_rain cloud_with_lightning_and_rain
6 ophiuchus
 pick
2 helmet_with_white_cross rescue_worker_helmet
2 chains
0-fe0f-200d-1f4a5 broken_chain
 no_entry
15 shinto_shrine
 church
6 mountain
 umbrella_on_ground parasol_on_ground
 fountain
 golf
 ferry
 boat sailboat
2 skier
 ice_skate
 person_with_ball bouncing_ball_person
0-fe0f-200d-2640-fe0f woman-bouncing-ball basketball_woman bouncing_ball_woman
0-fe0f-200d-2642-fe0f man-bouncing-ball basketball_man bouncing_ball_man
 tent
3 fuelpump
5 scissors
3 white_check_mark
3 airplane
 email envelope
 fist fist_raised
 hand raised_hand
 v
 writing_hand
2 pencil2
3 black_nib
2 heavy_check_mark
2 heavy_multiplication_x
7 latin_cross
4 star_of_david
7 sparkles
b eight_spoked_asterisk
 eight_pointed_black_star
10 snowflake
3 sparkle
5 x
2 negative_squared_cross_mark
5 question
 grey_question
 grey_exclamation
2 exclamation heavy_exclamation_mark
c heavy_heart_exclamation_mark_ornament heavy_heart_exclamation
 heart
0-fe0f-200d-1f525 heart_on_fire
0-fe0f-200d-1fa79 mending_heart
31 heavy_plus_sign
 heavy_minus_sign
 heavy_division_sign
a arrow_right
f curly_loop
f loop
175 arrow_heading_up
 arrow_heading_down
1d0 arrow_left
 arrow_up
 arrow_down
14 black_large_square
 white_large_square
34 star
5 o
4db wavy_dash
d part_alternation_mark
25a congratulations
2 secret
1bd6b mahjong
cb black_joker
a1 a
 b
d o2
 parking
f ab
3 cl
 cool
 free
 id
 new
 ng
 ok
 sos
 up
 vs
4c-1f1e8 flag-ac ascension_island
0-1f1e9 flag-ad andorra
0-1f1ea flag-ae united_arab_emirates
0-1f1eb flag-af afghanistan
0-1f1ec flag-ag antigua_barbuda
0-1f1ee flag-ai anguilla
0-1f1f1 flag-al albania
0-1f1f2 flag-am armenia
0-1f1f4 flag-ao angola
0-1f1f6 flag-aq antarctica
0-1f1f7 flag-ar argentina
0-1f1f8 flag-as american_samoa
0-1f1f9 flag-at austria
0-1f1fa flag-au australia
0-1f1fc flag-aw aruba
0-1f1fd flag-ax aland_islands
0-1f1ff flag-az azerbaijan
-1f1e6 flag-ba bosnia_herzegovina
0-1f1e7 flag-bb barbados
0-1f1e9 flag-bd bangladesh
0-1f1ea flag-be belgium
0-1f1eb flag-bf burkina_faso
0-1f1ec flag-bg bulgaria
0-1f1ed flag-bh bahrain
0-1f1ee flag-bi burundi
0-1f1ef flag-bj benin
0-1f1f1 flag-bl st_barthelemy
0-1f1f2 flag-bm bermuda
0-1f1f3 flag-bn brunei
0-1f1f4 flag-bo bolivia
0-1f1f6 flag-bq caribbean_netherlands
0-1f1f7 flag-br brazil
0-1f1f8 flag-bs bahamas
0-1f1f9 flag-bt bhutan
0-1f1fb flag-bv bouvet_island
0-1f1fc flag-bw botswana
0-1f1fe flag-by belarus
0-1f1ff flag-bz belize
-1f1e6 flag-ca canada
0-1f1e8 flag-cc cocos_islands
0-1f1e9 flag-cd congo_kinshasa
0-1f1eb flag-cf central_african_republic
0-1f1ec flag-cg congo_brazzaville
0-1f1ed flag-ch switzerland
0-1f1ee flag-ci cote_divoire
0-1f1f0 flag-ck cook_islands
0-1f1f1 flag-cl chile
0-1f1f2 flag-cm cameroon
0-1f1f3 cn flag-cn
0-1f1f4 flag-co colombia
0-1f1f5 flag-cp clipperton_island
0-1f1f6 flag-sark
0-1f1f7 flag-cr costa_rica
0-1f1fa flag-cu cuba
0-1f1fb flag-cv cape_verde
0-1f1fc flag-cw curacao
0-1f1fd flag-cx christmas_island
0-1f1fe flag-cy cyprus
0-1f1ff flag-cz czech_republic
-1f1ea de flag-de
0-1f1ec flag-dg diego_garcia
0-1f1ef flag-dj djibouti
0-1f1f0 flag-dk denmark
0-1f1f2 flag-dm dominica
0-1f1f4 flag-do dominican_republic
0-1f1ff flag-dz algeria
-1f1e6 flag-ea ceuta_melilla
0-1f1e8 flag-ec ecuador
0-1f1ea flag-ee estonia
0-1f1ec flag-eg egypt
0-1f1ed flag-eh western_sahara
0-1f1f7 flag-er eritrea
0-1f1f8 es flag-es
0-1f1f9 flag-et ethiopia
0-1f1fa flag-eu eu european_union
-1f1ee flag-fi finland
0-1f1ef flag-fj fiji
0-1f1f0 flag-fk falkland_islands
0-1f1f2 flag-fm micronesia
0-1f1f4 flag-fo faroe_islands
0-1f1f7 fr flag-fr
-1f1e6 flag-ga gabon
0-1f1e7 gb uk flag-gb
0-1f1e9 flag-gd grenada
0-1f1ea flag-ge georgia
0-1f1eb flag-gf french_guiana
0-1f1ec flag-gg guernsey
0-1f1ed flag-gh ghana
0-1f1ee flag-gi gibraltar
0-1f1f1 flag-gl greenland
0-1f1f2 flag-gm gambia
0-1f1f3 flag-gn guinea
0-1f1f5 flag-gp guadeloupe
0-1f1f6 flag-gq equatorial_guinea
0-1f1f7 flag-gr greece
0-1f1f8 flag-gs south_georgia_south_sandwich_islands
0-1f1f9 flag-gt guatemala
0-1f1fa flag-gu guam
0-1f1fc flag-gw guinea_bissau
0-1f1fe flag-gy guyana
-1f1f0 flag-hk hong_kong
0-1f1f2 flag-hm heard_mcdonald_islands
0-1f1f3 flag-hn honduras
0-1f1f7 flag-hr croatia
0-1f1f9 flag-ht haiti
0-1f1fa flag-hu hungary
-1f1e8 flag-ic canary_islands
0-1f1e9 flag-id indonesia
0-1f1ea flag-ie ireland
0-1f1f1 flag-il israel
0-1f1f2 flag-im isle_of_man
0-1f1f3 flag-in india
0-1f1f4 flag-io british_indian_ocean_territory
0-1f1f6 flag-iq iraq
0-1f1f7 flag-ir iran
0-1f1f8 flag-is iceland
0-1f1f9 it flag-it
-1f1ea flag-je jersey
0-1f1f2 flag-jm jamaica
0-1f1f4 flag-jo jordan
0-1f1f5 jp flag-jp
-1f1ea flag-ke kenya
0-1f1ec flag-kg kyrgyzstan
0-1f1ed flag-kh cambodia
0-1f1ee flag-ki kiribati
0-1f1f2 flag-km comoros
0-1f1f3 flag-kn st_kitts_nevis
0-1f1f5 flag-kp north_korea
0-1f1f7 kr flag-kr
0-1f1fc flag-kw kuwait
0-1f1fe flag-ky cayman_islands
0-1f1ff flag-kz kazakhstan
-1f1e6 flag-la laos
0-1f1e7 flag-lb lebanon
0-1f1e8 flag-lc st_lucia
0-1f1ee flag-li liechtenstein
0-1f1f0 flag-lk sri_lanka
0-1f1f7 flag-lr liberia
0-1f1f8 flag-ls lesotho
0-1f1f9 flag-lt lithuania
0-1f1fa flag-lu luxembourg
0-1f1fb flag-lv latvia
0-1f1fe flag-ly libya
-1f1e6 flag-ma morocco
0-1f1e8 flag-mc monaco
0-1f1e9 flag-md moldova
0-1f1ea flag-me montenegro
0-1f1eb flag-mf st_martin
0-1f1ec flag-mg madagascar
0-1f1ed flag-mh marshall_islands
0-1f1f0 flag-mk macedonia
0-1f1f1 flag-ml mali
0-1f1f2 flag-mm myanmar
0-1f1f3 flag-mn mongolia
0-1f1f4 flag-mo macau
0-1f1f5 flag-mp northern_mariana_islands
0-1f1f6 flag-mq martinique
0-1f1f7 flag-mr mauritania
0-1f1f8 flag-ms montserrat
0-1f1f9 flag-mt malta
0-1f1fa flag-mu mauritius
0-1f1fb flag-mv maldives
0-1f1fc flag-mw malawi
0-1f1fd flag-mx mexico
0-1f1fe flag-my malaysia
0-1f1ff flag-mz mozambique
-1f1e6 flag-na namibia
0-1f1e8 flag-nc new_caledonia
0-1f1ea flag-ne niger
0-1f1eb flag-nf norfolk_island
0-1f1ec flag-ng nigeria
0-1f1ee flag-ni nicaragua
0-1f1f1 flag-nl netherlands
0-1f1f4 flag-no norway
0-1f1f5 flag-np nepal
0-1f1f7 flag-nr nauru
0-1f1fa flag-nu niue
0-1f1ff flag-nz new_zealand
-1f1f2 flag-om oman
-1f1e6 flag-pa panama
0-1f1ea flag-pe peru
0-1f1eb flag-pf french_polynesia
0-1f1ec flag-pg papua_new_guinea
0-1f1ed flag-ph philippines
0-1f1f0 flag-pk pakistan
0-1f1f1 flag-pl poland
0-1f1f2 flag-pm st_pierre_miquelon
0-1f1f3 flag-pn pitcairn_islands
0-1f1f7 flag-pr puerto_rico
0-1f1f8 flag-ps palestinian_territories
0-1f1f9 flag-pt portugal
0-1f1fc flag-pw palau
0-1f1fe flag-py paraguay
-1f1e6 flag-qa qatar
-1f1ea flag-re reunion
0-1f1f4 flag-ro romania
0-1f1f8 flag-rs serbia
0-1f1fa ru flag-ru
0-1f1fc flag-rw rwanda
-1f1e6 flag-sa saudi_arabia
0-1f1e7 flag-sb solomon_islands
0-1f1e8 flag-sc seychelles
0-1f1e9 flag-sd sudan
0-1f1ea flag-se sweden
0-1f1ec flag-sg singapore
0-1f1ed flag-sh st_helena
0-1f1ee flag-si slovenia
0-1f1ef flag-sj svalbard_jan_mayen
0-1f1f0 flag-sk slovakia
0-1f1f1 flag-sl sierra_leone
0-1f1f2 flag-sm san_marino
0-1f1f3 flag-sn senegal
0-1f1f4 flag-so somalia
0-1f1f7 flag-sr suriname
0-1f1f8 flag-ss south_sudan
0-1f1f9 flag-st sao_tome_principe
0-1f1fb flag-sv el_salvador
0-1f1fd flag-sx sint_maarten
0-1f1fe flag-sy syria
0-1f1ff flag-sz swaziland
-1f1e6 flag-ta tristan_da_cunha
0-1f1e8 flag-tc turks_caicos_islands
0-1f1e9 flag-td chad
0-1f1eb flag-tf french_southern_territories
0-1f1ec flag-tg togo
0-1f1ed flag-th thailand
0-1f1ef flag-tj tajikistan
0-1f1f0 flag-tk tokelau
0-1f1f1 flag-tl timor_leste
0-1f1f2 flag-tm turkmenistan
0-1f1f3 flag-tn tunisia
0-1f1f4 flag-to tonga
0-1f1f7 flag-tr tr
0-1f1f9 flag-tt trinidad_tobago
0-1f1fb flag-tv tuvalu
0-1f1fc flag-tw taiwan
0-1f1ff flag-tz tanzania
-1f1e6 flag-ua ukraine
0-1f1ec flag-ug uganda
0-1f1f2 flag-um us_outlying_islands
0-1f1f3 flag-un united_nations
0-1f1f8 us flag-us
0-1f1fe flag-uy uruguay
0-1f1ff flag-uz uzbekistan
-1f1e6 flag-va vatican_city
0-1f1e8 flag-vc st_vincent_grenadines
0-1f1ea flag-ve venezuela
0-1f1ec flag-vg british_virgin_islands
0-1f1ee flag-vi us_virgin_islands
0-1f1f3 flag-vn vietnam
0-1f1fa flag-vu vanuatu
-1f1eb flag-wf wallis_futuna
0-1f1f8 flag-ws samoa
-1f1f0 flag-xk kosovo
-1f1ea flag-ye yemen
0-1f1f9 flag-yt mayotte
-1f1e6 flag-za south_africa
0-1f1f2 flag-zm zambia
0-1f1fc flag-zw zimbabwe
2 koko
 sa
18 u7121
15 u6307
3 u7981
 u7a7a
 u5408
 u6e80
 u6709
 u6708
 u7533
 u5272
 u55b6
16 ideograph_advantage
 accept
af cyclone
 foggy
 closed_umbrella
 night_with_stars
 sunrise_over_mountains
 sunrise
 city_sunset
 city_sunrise
 rainbow
 bridge_at_night
 ocean
 volcano
 milky_way
 earth_africa
 earth_americas
 earth_asia
 globe_with_meridians
 new_moon
 waxing_crescent_moon
 first_quarter_moon
 moon waxing_gibbous_moon
 full_moon
 waning_gibbous_moon
 last_quarter_moon
 waning_crescent_moon
 crescent_moon
 new_moon_with_face
 first_quarter_moon_with_face
 last_quarter_moon_with_face
 full_moon_with_face
 sun_with_face
 star2
 stars
 thermometer
3 mostly_sunny sun_small_cloud sun_behind_small_cloud
 barely_sunny sun_behind_cloud sun_behind_large_cloud
 partly_sunny_rain sun_behind_rain_cloud
 rain_cloud cloud_with_rain
 snow_cloud cloud_with_snow
 lightning lightning_cloud cloud_with_lightning
 tornado tornado_cloud
 fog
 wind_blowing_face wind_face
 hotdog
 taco
 burrito
 chestnut
 seedling
 evergreen_tree
 deciduous_tree
 palm_tree
 cactus
 hot_pepper
 tulip
 cherry_blossom
 rose
 hibiscus
 sunflower
 blossom
 corn
 ear_of_rice
 herb
 four_leaf_clover
 maple_leaf
 fallen_leaf
 leaves
 mushroom
0-200d-1f7eb brown_mushroom
 tomato
 eggplant
 grapes
 melon
 watermelon
 tangerine mandarin orange
 lemon
0-200d-1f7e9 lime
 banana
 pineapple
 apple
 green_apple
 pear
 peach
 cherries
 strawberry
 hamburger
 pizza
 meat_on_bone
 poultry_leg
 rice_cracker
 rice_ball
 rice
 curry
 ramen
 spaghetti
 bread
 fries
 sweet_potato
 dango
 oden
 sushi
 fried_shrimp
 fish_cake
 icecream
 shaved_ice
 ice_cream
 doughnut
 cookie
 chocolate_bar
 candy
 lollipop
 custard
 honey_pot
 cake
 bento
 stew
 fried_egg cooking
 fork_and_knife
 tea
 sake
 wine_glass
 cocktail
 tropical_drink
 beer
 beers
 baby_bottle
 knife_fork_plate plate_with_cutlery
 champagne
 popcorn
 ribbon
 gift
 birthday
 jack_o_lantern
 christmas_tree
 santa
 fireworks
 sparkler
 balloon
 tada
 confetti_ball
 tanabata_tree
 crossed_flags
 bamboo
 dolls
 flags
 wind_chime
 rice_scene
 school_satchel
 mortar_board
3 medal medal_military
 reminder_ribbon
2 studio_microphone
 level_slider
 control_knobs
3 film_frames film_strip
 admission_tickets tickets
 carousel_horse
 ferris_wheel
 roller_coaster
 fishing_pole_and_fish
 microphone
 movie_camera
 cinema
 headphones
 art
 tophat
 circus_tent
 ticket
 clapper
 performing_arts
 video_game
 dart
 slot_machine
 8ball
 game_die
 bowling
 flower_playing_cards
 musical_note
 notes
 saxophone
 guitar
 musical_keyboard
 trumpet
 violin
 musical_score
 running_shirt_with_sash
 tennis
 ski
 basketball
 checkered_flag
 snowboarder
 runner running
0-200d-2640-fe0f woman-running running_woman
0-200d-2640-fe0f-200d-27a1-fe0f woman_running_facing_right
0-200d-2642-fe0f man-running running_man
0-200d-2642-fe0f-200d-27a1-fe0f man_running_facing_right
0-200d-27a1-fe0f person_running_facing_right
 surfer
0-200d-2640-fe0f woman-surfing surfing_woman
0-200d-2642-fe0f man-surfing surfing_man
 sports_medal medal_sports
 trophy
 horse_racing
 football
 rugby_football
 swimmer
0-200d-2640-fe0f woman-swimming swimming_woman
0-200d-2642-fe0f man-swimming swimming_man
 weight_lifter weight_lifting
0-fe0f-200d-2640-fe0f woman-lifting-weights weight_lifting_woman
0-fe0f-200d-2642-fe0f man-lifting-weights weight_lifting_man
 golfer golfing
0-fe0f-200d-2640-fe0f woman-golfing golfing_woman
0-fe0f-200d-2642-fe0f man-golfing golfing_man
 racing_motorcycle motorcycle
 racing_car
 cricket_bat_and_ball cricket_game
 volleyball
 field_hockey_stick_and_ball field_hockey
 ice_hockey_stick_and_puck ice_hockey
 table_tennis_paddle_and_ball ping_pong
 snow_capped_mountain mountain_snow
 camping
 beach_with_umbrella beach_umbrella
 building_construction
 house_buildings houses
 cityscape
 derelict_house_building derelict_house
 classical_building
 desert
 desert_island
 national_park
 stadium
 house
 house_with_garden
 office
 post_office
 european_post_office
 hospital
 bank
 atm
 hotel
 love_hotel
 convenience_store
 school
 department_store
 factory
 izakaya_lantern lantern
 japanese_castle
 european_castle
3 waving_white_flag white_flag
0-fe0f-200d-26a7-fe0f transgender_flag
0-fe0f-200d-1f308 rainbow-flag rainbow_flag
 waving_black_flag black_flag
0-200d-2620-fe0f pirate_flag
0-e0067-e0062-e0065-e006e-e0067-e007f flag-england england
0-e0067-e0062-e0073-e0063-e0074-e007f flag-scotland scotland
0-e0067-e0062-e0077-e006c-e0073-e007f flag-wales wales
 rosette
2 label
 badminton_racquet_and_shuttlecock badminton
 bow_and_arrow
 amphora
 skin-tone-2
 skin-tone-3
 skin-tone-4
 skin-tone-5
 skin-tone-6
 rat
 mouse2
 ox
 water_buffalo
 cow2
 tiger2
 leopard
 rabbit2
 cat2
0-200d-2b1b black_cat
 dragon
 crocodile
 whale2
 snail
 snake
 racehorse
 ram
 goat
 sheep
 monkey
 rooster
 chicken
 dog2
0-200d-1f9ba service_dog
 pig2
 boar
 elephant
 octopus
 shell
 bug
 ant
 bee honeybee
 ladybug lady_beetle
 fish
 tropical_fish
 blowfish
 turtle
 hatching_chick
 baby_chick
 hatched_chick
 bird
0-200d-2b1b black_bird
0-200d-1f525 phoenix
 penguin
 koala
 poodle
 dromedary_camel
 camel
 dolphin flipper
 mouse
 cow
 tiger
 rabbit
 cat
 dragon_face
 whale
 horse
 monkey_face
 dog
 pig
 frog
 hamster
 wolf
 bear
0-200d-2744-fe0f polar_bear
 panda_face
 pig_nose
 feet paw_prints
 chipmunk
 eyes
 eye
0-fe0f-200d-1f5e8-fe0f eye-in-speech-bubble eye_speech_bubble
 ear
 nose
 lips
 tongue
 point_up_2
 point_down
 point_left
 point_right
 facepunch punch fist_oncoming
 wave
 ok_hand
 +1 thumbsup
 -1 thumbsdown
 clap
 open_hands
 crown
 womans_hat
 eyeglasses
 necktie
 shirt tshirt
 jeans
 dress
 kimono
 bikini
 womans_clothes
 purse
 handbag
 pouch
 mans_shoe shoe
 athletic_shoe
 high_heel
 sandal
 boot
 footprints
 bust_in_silhouette
 busts_in_silhouette
 boy
 girl
 man
0-200d-2695-fe0f male-doctor man_health_worker
0-200d-2696-fe0f male-judge man_judge
0-200d-2708-fe0f male-pilot man_pilot
0-200d-2764-fe0f-200d-1f468 man-heart-man couple_with_heart_man_man
0-200d-2764-fe0f-200d-1f48b-200d-1f468 man-kiss-man couplekiss_man_man
0-200d-1f33e male-farmer man_farmer
0-200d-1f373 male-cook man_cook
0-200d-1f37c man_feeding_baby
0-200d-1f393 male-student man_student
0-200d-1f3a4 male-singer man_singer
0-200d-1f3a8 male-artist man_artist
0-200d-1f3eb male-teacher man_teacher
0-200d-1f3ed male-factory-worker man_factory_worker
0-200d-1f466 man-boy family_man_boy
0-200d-1f466-200d-1f466 man-boy-boy family_man_boy_boy
0-200d-1f467 man-girl family_man_girl
0-200d-1f467-200d-1f466 man-girl-boy family_man_girl_boy
0-200d-1f467-200d-1f467 man-girl-girl family_man_girl_girl
0-200d-1f468-200d-1f466 man-man-boy family_man_man_boy
0-200d-1f468-200d-1f466-200d-1f466 man-man-boy-boy family_man_man_boy_boy
0-200d-1f468-200d-1f467 man-man-girl family_man_man_girl
0-200d-1f468-200d-1f467-200d-1f466 man-man-girl-boy family_man_man_girl_boy
0-200d-1f468-200d-1f467-200d-1f467 man-man-girl-girl family_man_man_girl_girl
0-200d-1f469-200d-1f466 man-woman-boy family_man_woman_boy
0-200d-1f469-200d-1f466-200d-1f466 man-woman-boy-boy family_man_woman_boy_boy
0-200d-1f469-200d-1f467 man-woman-girl family_man_woman_girl
0-200d-1f469-200d-1f467-200d-1f466 man-woman-girl-boy family_man_woman_girl_boy
0-200d-1f469-200d-1f467-200d-1f467 man-woman-girl-girl family_man_woman_girl_girl
0-200d-1f4bb male-technologist man_technologist
0-200d-1f4bc male-office-worker man_office_worker
0-200d-1f527 male-mechanic man_mechanic
0-200d-1f52c male-scientist man_scientist
0-200d-1f680 male-astronaut man_astronaut
0-200d-1f692 male-firefighter man_firefighter
0-200d-1f9af man_with_probing_cane
0-200d-1f9af-200d-27a1-fe0f man_with_white_cane_facing_right
0-200d-1f9b0 red_haired_man
0-200d-1f9b1 curly_haired_man
0-200d-1f9b2 bald_man
0-200d-1f9b3 white_haired_man
0-200d-1f9bc man_in_motorized_wheelchair
0-200d-1f9bc-200d-27a1-fe0f man_in_motorized_wheelchair_facing_right
0-200d-1f9bd man_in_manual_wheelchair
0-200d-1f9bd-200d-27a1-fe0f man_in_manual_wheelchair_facing_right
 woman
0-200d-2695-fe0f female-doctor woman_health_worker
0-200d-2696-fe0f female-judge woman_judge
0-200d-2708-fe0f female-pilot woman_pilot
0-200d-2764-fe0f-200d-1f468 woman-heart-man couple_with_heart_woman_man
0-200d-2764-fe0f-200d-1f469 woman-heart-woman couple_with_heart_woman_woman
0-200d-2764-fe0f-200d-1f48b-200d-1f468 woman-kiss-man couplekiss_man_woman
0-200d-2764-fe0f-200d-1f48b-200d-1f469 woman-kiss-woman couplekiss_woman_woman
0-200d-1f33e female-farmer woman_farmer
0-200d-1f373 female-cook woman_cook
0-200d-1f37c woman_feeding_baby
0-200d-1f393 female-student woman_student
0-200d-1f3a4 female-singer woman_singer
0-200d-1f3a8 female-artist woman_artist
0-200d-1f3eb female-teacher woman_teacher
0-200d-1f3ed female-factory-worker woman_factory_worker
0-200d-1f466 woman-boy family_woman_boy
0-200d-1f466-200d-1f466 woman-boy-boy family_woman_boy_boy
0-200d-1f467 woman-girl family_woman_girl
0-200d-1f467-200d-1f466 woman-girl-boy family_woman_girl_boy
0-200d-1f467-200d-1f467 woman-girl-girl family_woman_girl_girl
0-200d-1f469-200d-1f466 woman-woman-boy family_woman_woman_boy
0-200d-1f469-200d-1f466-200d-1f466 woman-woman-boy-boy family_woman_woman_boy_boy
0-200d-1f469-200d-1f467 woman-woman-girl family_woman_woman_girl
0-200d-1f469-200d-1f467-200d-1f466 woman-woman-girl-boy family_woman_woman_girl_boy
0-200d-1f469-200d-1f467-200d-1f467 woman-woman-girl-girl family_woman_woman_girl_girl
0-200d-1f4bb female-technologist woman_technologist
0-200d-1f4bc female-office-worker woman_office_worker
0-200d-1f527 female-mechanic woman_mechanic
0-200d-1f52c female-scientist woman_scientist
0-200d-1f680 female-astronaut woman_astronaut
0-200d-1f692 female-firefighter woman_firefighter
0-200d-1f9af woman_with_probing_cane
0-200d-1f9af-200d-27a1-fe0f woman_with_white_cane_facing_right
0-200d-1f9b0 red_haired_woman
0-200d-1f9b1 curly_haired_woman
0-200d-1f9b2 bald_woman
0-200d-1f9b3 white_haired_woman
0-200d-1f9bc woman_in_motorized_wheelchair
0-200d-1f9bc-200d-27a1-fe0f woman_in_motorized_wheelchair_facing_right
0-200d-1f9bd woman_in_manual_wheelchair
0-200d-1f9bd-200d-27a1-fe0f woman_in_manual_wheelchair_facing_right
 family
 man_and_woman_holding_hands woman_and_man_holding_hands couple
 two_men_holding_hands men_holding_hands
 two_women_holding_hands women_holding_hands
 cop police_officer
0-200d-2640-fe0f female-police-officer policewoman
0-200d-2642-fe0f male-police-officer policeman
 dancers
0-200d-2640-fe0f women-with-bunny-ears-partying woman-with-bunny-ears-partying dancing_women
0-200d-2642-fe0f men-with-bunny-ears-partying man-with-bunny-ears-partying dancing_men
 bride_with_veil person_with_veil
0-200d-2640-fe0f woman_with_veil
0-200d-2642-fe0f man_with_veil
 person_with_blond_hair blond_haired_person
0-200d-2640-fe0f blond-haired-woman blond_haired_woman blonde_woman
0-200d-2642-fe0f blond-haired-man blond_haired_man
 man_with_gua_pi_mao
 man_with_turban person_with_turban
0-200d-2640-fe0f woman-wearing-turban woman_with_turban
0-200d-2642-fe0f man-wearing-turban
 older_man
 older_woman
 baby
 construction_worker
0-200d-2640-fe0f female-construction-worker construction_worker_woman
0-200d-2642-fe0f male-construction-worker construction_worker_man
 princess
 japanese_ogre
 japanese_goblin
 ghost
 angel
 alien
 space_invader
 imp
 skull
 information_desk_person tipping_hand_person
0-200d-2640-fe0f woman-tipping-hand sassy_woman tipping_hand_woman
0-200d-2642-fe0f man-tipping-hand sassy_man tipping_hand_man
 guardsman guard
0-200d-2640-fe0f female-guard guardswoman
0-200d-2642-fe0f male-guard
 dancer woman_dancing
 lipstick
 nail_care
 massage
0-200d-2640-fe0f woman-getting-massage massage_woman
0-200d-2642-fe0f man-getting-massage massage_man
 haircut
0-200d-2640-fe0f woman-getting-haircut haircut_woman
0-200d-2642-fe0f man-getting-haircut haircut_man
 barber
 syringe
 pill
 kiss
 love_letter
 ring
 gem
 couplekiss
 bouquet
 couple_with_heart
 wedding
 heartbeat
 broken_heart
 two_hearts
 sparkling_heart
 heartpulse
 cupid
 blue_heart
 green_heart
 yellow_heart
 purple_heart
 gift_heart
 revolving_hearts
 heart_decoration
 diamond_shape_with_a_dot_inside
 bulb
 anger
 bomb
 zzz
 boom collision
 sweat_drops
 droplet
 dash
 hankey poop shit
 muscle
 dizzy
 speech_balloon
 thought_balloon
 white_flower
 100
 moneybag
 currency_exchange
 heavy_dollar_sign
 credit_card
 yen
 dollar
 euro
 pound
 money_with_wings
 chart
 seat
 computer
 briefcase
 minidisc
 floppy_disk
 cd
 dvd
 file_folder
 open_file_folder
 page_with_curl
 page_facing_up
 date
 calendar
 card_index
 chart_with_upwards_trend
 chart_with_downwards_trend
 bar_chart
 clipboard
 pushpin
 round_pushpin
 paperclip
 straight_ruler
 triangular_ruler
 bookmark_tabs
 ledger
 notebook
 notebook_with_decorative_cover
 closed_book
 book open_book
 green_book
 blue_book
 orange_book
 books
 name_badge
 scroll
 memo pencil
 telephone_receiver
 pager
 fax
 satellite_antenna
 loudspeaker
 mega
 outbox_tray
 inbox_tray
 package
 e-mail
 incoming_envelope
 envelope_with_arrow
 mailbox_closed
 mailbox
 mailbox_with_mail
 mailbox_with_no_mail
 postbox
 postal_horn
 newspaper
 iphone
 calling
 vibration_mode
 mobile_phone_off
 no_mobile_phones
 signal_strength
 camera
 camera_with_flash camera_flash
 video_camera
 tv
 radio
 vhs
 film_projector
2 prayer_beads
 twisted_rightwards_arrows
 repeat
 repeat_one
 arrows_clockwise
 arrows_counterclockwise
 low_brightness
 high_brightness
 mute
 speaker
 sound
 loud_sound
 battery
 electric_plug
 mag
 mag_right
 lock_with_ink_pen
 closed_lock_with_key
 key
 lock
 unlock
 bell
 no_bell
 bookmark
 link
 radio_button
 back
 end
 on
 soon
 top
 underage
 keycap_ten
 capital_abcd
 abcd
 1234
 symbols
 abc
 fire
 flashlight
 wrench
 hammer
 nut_and_bolt
 hocho knife
 gun
 microscope
 telescope
 crystal_ball
 six_pointed_star
 beginner
 trident
 black_square_button
 white_square_button
 red_circle
 large_blue_circle
 large_orange_diamond
 large_blue_diamond
 small_orange_diamond
 small_blue_diamond
 small_red_triangle
 small_red_triangle_down
 arrow_up_small
 arrow_down_small
c om_symbol om
 dove_of_peace dove
 kaaba
 mosque
 synagogue
 menorah_with_nine_branches menorah
2 clock1
 clock2
 clock3
 clock4
 clock5
 clock6
 clock7
 clock8
 clock9
 clock10
 clock11
 clock12
 clock130
 clock230
 clock330
 clock430
 clock530
 clock630
 clock730
 clock830
 clock930
 clock1030
 clock1130
 clock1230
8 candle
 mantelpiece_clock
3 hole
 man_in_business_suit_levitating business_suit_levitating
 sleuth_or_spy detective
0-fe0f-200d-2640-fe0f female-detective female_detective
0-fe0f-200d-2642-fe0f male-detective male_detective
 dark_sunglasses
 spider
 spider_web
 joystick
 man_dancing
d linked_paperclips paperclips
3 lower_left_ballpoint_pen pen
 lower_left_fountain_pen fountain_pen
 lower_left_paintbrush paintbrush
 lower_left_crayon crayon
3 raised_hand_with_fingers_splayed
5 middle_finger reversed_hand_with_middle_finger_extended fu
 spock-hand vulcan_salute
e black_heart
 desktop_computer
3 printer
9 three_button_mouse computer_mouse
 trackball
a frame_with_picture framed_picture
6 card_index_dividers
 card_file_box
 file_cabinet
d wastebasket
 spiral_note_pad spiral_notepad
 spiral_calendar_pad spiral_calendar
9 compression clamp
 old_key
 rolled_up_newspaper newspaper_roll
3 dagger_knife dagger
2 speaking_head_in_silhouette speaking_head
5 left_speech_bubble
7 right_anger_bubble
4 ballot_box_with_ballot ballot_box
7 world_map
 mount_fuji
 tokyo_tower
 statue_of_liberty
 japan
 moyai
 grinning
 grin
 joy
 smiley
 smile
 sweat_smile
 laughing satisfied
 innocent
 smiling_imp
 wink
 blush
 yum
 relieved
 heart_eyes
 sunglasses
 smirk
 neutral_face
 expressionless
 unamused
 sweat
 pensive
 confused
 confounded
 kissing
 kissing_heart
 kissing_smiling_eyes
 kissing_closed_eyes
 stuck_out_tongue
 stuck_out_tongue_winking_eye
 stuck_out_tongue_closed_eyes
 disappointed
 worried
 angry
 rage pout
 cry
 persevere
 triumph
 disappointed_relieved
 frowning
 anguished
 fearful
 weary
 sleepy
 tired_face
 grimacing
 sob
 open_mouth
0-200d-1f4a8 face_exhaling
 hushed
 cold_sweat
 scream
 astonished
 flushed
 sleeping
 dizzy_face
0-200d-1f4ab face_with_spiral_eyes
 no_mouth
0-200d-1f32b-fe0f face_in_clouds
 mask
 smile_cat
 joy_cat
 smiley_cat
 heart_eyes_cat
 smirk_cat
 kissing_cat
 pouting_cat
 crying_cat_face
 scream_cat
 slightly_frowning_face
 slightly_smiling_face
0-200d-2194-fe0f head_shaking_horizontally
0-200d-2195-fe0f head_shaking_vertically
 upside_down_face
 face_with_rolling_eyes roll_eyes
 no_good
0-200d-2640-fe0f woman-gesturing-no ng_woman no_good_woman
0-200d-2642-fe0f man-gesturing-no ng_man no_good_man
 ok_woman ok_person
0-200d-2640-fe0f woman-gesturing-ok
0-200d-2642-fe0f man-gesturing-ok ok_man
 bow
0-200d-2640-fe0f woman-bowing bowing_woman
0-200d-2642-fe0f man-bowing bowing_man
 see_no_evil
 hear_no_evil
 speak_no_evil
 raising_hand
0-200d-2640-fe0f woman-raising-hand raising_hand_woman
0-200d-2642-fe0f man-raising-hand raising_hand_man
 raised_hands
 person_frowning frowning_person
0-200d-2640-fe0f woman-frowning frowning_woman
0-200d-2642-fe0f man-frowning frowning_man
 person_with_pouting_face pouting_face
0-200d-2640-fe0f woman-pouting pouting_woman
0-200d-2642-fe0f man-pouting pouting_man
 pray
31 rocket
 helicopter
 steam_locomotive
 railway_car
 bullettrain_side
 bullettrain_front
 train2
 metro
 light_rail
 station
 tram
 train
 bus
 oncoming_bus
 trolleybus
 busstop
 minibus
 ambulance
 fire_engine
 police_car
 oncoming_police_car
 taxi
 oncoming_taxi
 car red_car
 oncoming_automobile
 blue_car
 truck
 articulated_lorry
 tractor
 monorail
 mountain_railway
 suspension_railway
 mountain_cableway
 aerial_tramway
 ship
 rowboat
0-200d-2640-fe0f woman-rowing-boat rowing_woman
0-200d-2642-fe0f man-rowing-boat rowing_man
 speedboat
 traffic_light
 vertical_traffic_light
 construction
 rotating_light
 triangular_flag_on_post
 door
 no_entry_sign
 smoking
 no_smoking
 put_litter_in_its_place
 do_not_litter
 potable_water
 non-potable_water
 bike
 no_bicycles
 bicyclist
0-200d-2640-fe0f woman-biking biking_woman
0-200d-2642-fe0f man-biking biking_man
 mountain_bicyclist
0-200d-2640-fe0f woman-mountain-biking mountain_biking_woman
0-200d-2642-fe0f man-mountain-biking mountain_biking_man
 walking
0-200d-2640-fe0f woman-walking walking_woman
0-200d-2640-fe0f-200d-27a1-fe0f woman_walking_facing_right
0-200d-2642-fe0f man-walking walking_man
0-200d-2642-fe0f-200d-27a1-fe0f man_walking_facing_right
0-200d-27a1-fe0f person_walking_facing_right
 no_pedestrians
 children_crossing
 mens
 womens
 restroom
 baby_symbol
 toilet
 wc
 shower
 bath
 bathtub
 passport_control
 customs
 baggage_claim
 left_luggage
6 couch_and_lamp
 sleeping_accommodation sleeping_bed
 shopping_bags shopping
 bellhop_bell
 bed
 place_of_worship
 octagonal_sign stop_sign
 shopping_trolley shopping_cart
3 hindu_temple
 hut
 elevator
5 wireless
 playground_slide
 wheel
 ring_buoy
 hammer_and_wrench
 shield
 oil_drum
 motorway
 railway_track
 motor_boat
4 small_airplane
2 airplane_departure flight_departure
 airplane_arriving flight_arrival
4 satellite artificial_satellite
3 passenger_ship
 scooter kick_scooter
 motor_scooter
 canoe
 sled
 flying_saucer
 skateboard
 auto_rickshaw
 pickup_truck
 roller_skate
e4 large_orange_circle orange_circle
 large_yellow_circle yellow_circle
 large_green_circle green_circle
 large_purple_circle purple_circle
 large_brown_circle brown_circle
 large_red_square red_square
 large_blue_square blue_square
 large_orange_square orange_square
 large_yellow_square yellow_square
 large_green_square green_square
 large_purple_square purple_square
 large_brown_square brown_square
5 heavy_equals_sign
11c pinched_fingers
 white_heart
 brown_heart
 pinching_hand
 zipper_mouth_face
 money_mouth_face
 face_with_thermometer
 nerd_face
 thinking_face thinking
 face_with_head_bandage
 robot_face robot
 hugging_face hugs
 the_horns sign_of_the_horns metal
 call_me_hand
 raised_back_of_hand
 left-facing_fist fist_left
 right-facing_fist fist_right
 handshake
 crossed_fingers hand_with_index_and_middle_fingers_crossed
 i_love_you_hand_sign love_you_gesture
 face_with_cowboy_hat cowboy_hat_face
 clown_face
 nauseated_face
 rolling_on_the_floor_laughing rofl
 drooling_face
 lying_face
 face_palm facepalm
0-200d-2640-fe0f woman-facepalming woman_facepalming
0-200d-2642-fe0f man-facepalming man_facepalming
 sneezing_face
 face_with_raised_eyebrow face_with_one_eyebrow_raised raised_eyebrow
 star-struck grinning_face_with_star_eyes star_struck
 zany_face grinning_face_with_one_large_and_one_small_eye
 shushing_face face_with_finger_covering_closed_lips
 face_with_symbols_on_mouth serious_face_with_symbols_covering_mouth cursing_face
 face_with_hand_over_mouth smiling_face_with_smiling_eyes_and_hand_covering_mouth hand_over_mouth
 face_vomiting face_with_open_mouth_vomiting vomiting_face
 exploding_head shocked_face_with_exploding_head
 pregnant_woman
 breast-feeding breast_feeding
 palms_up_together
 selfie
 prince
 person_in_tuxedo
0-200d-2640-fe0f woman_in_tuxedo
0-200d-2642-fe0f man_in_tuxedo
 mrs_claus mother_christmas
 shrug
0-200d-2640-fe0f woman-shrugging woman_shrugging
0-200d-2642-fe0f man-shrugging man_shrugging
 person_doing_cartwheel cartwheeling
0-200d-2640-fe0f woman-cartwheeling woman_cartwheeling
0-200d-2642-fe0f man-cartwheeling man_cartwheeling
 juggling juggling_person
0-200d-2640-fe0f woman-juggling woman_juggling
0-200d-2642-fe0f man-juggling man_juggling
 fencer person_fencing
2 wrestlers wrestling
0-200d-2640-fe0f woman-wrestling women_wrestling
0-200d-2642-fe0f man-wrestling men_wrestling
 water_polo
0-200d-2640-fe0f woman-playing-water-polo woman_playing_water_polo
0-200d-2642-fe0f man-playing-water-polo man_playing_water_polo
 handball handball_person
0-200d-2640-fe0f woman-playing-handball woman_playing_handball
0-200d-2642-fe0f man-playing-handball man_playing_handball
 diving_mask
 wilted_flower
 drum_with_drumsticks drum
 clinking_glasses
 tumbler_glass
 spoon
 goal_net
2 first_place_medal 1st_place_medal
 second_place_medal 2nd_place_medal
 third_place_medal 3rd_place_medal
 boxing_glove
 martial_arts_uniform
 curling_stone
 lacrosse
 softball
 flying_disc
 croissant
 avocado
 cucumber
 bacon
 potato
 carrot
 baguette_bread
 green_salad
 shallow_pan_of_food
 stuffed_flatbread
 egg
 glass_of_milk milk_glass
 peanuts
 kiwifruit kiwi_fruit
 pancakes
 dumpling
 fortune_cookie
 takeout_box
 chopsticks
 bowl_with_spoon
 cup_with_straw
 coconut
 broccoli
 pie
 pretzel
 cut_of_meat
 sandwich
 canned_food
 leafy_green
 mango
 moon_cake
 bagel
 smiling_face_with_3_hearts smiling_face_with_three_hearts
 yawning_face
 smiling_face_with_tear
 partying_face
 woozy_face
 hot_face
 cold_face
 ninja
 disguised_face
 face_holding_back_tears
 pleading_face
 sari
 lab_coat
 goggles
 hiking_boot
 womans_flat_shoe flat_shoe
 crab
 lion_face lion
 scorpion
 turkey
 unicorn_face unicorn
 eagle
 duck
 bat
 shark
 owl
 fox_face
 butterfly
 deer
 gorilla
 lizard
 rhinoceros
 shrimp
 squid
 giraffe_face giraffe
 zebra_face zebra
 hedgehog
 sauropod
 t-rex
 cricket
 kangaroo
 llama
 peacock
 hippopotamus
 parrot
 raccoon
 lobster
 mosquito
 microbe
 badger
 swan
 mammoth
 dodo
 sloth
 otter
 orangutan
 skunk
 flamingo
 oyster
 beaver
 bison
 seal
 guide_dog
 probing_cane
5 bone
 leg
 foot
 tooth
 superhero
0-200d-2640-fe0f female_superhero superhero_woman
0-200d-2642-fe0f male_superhero superhero_man
 supervillain
0-200d-2640-fe0f female_supervillain supervillain_woman
0-200d-2642-fe0f male_supervillain supervillain_man
 safety_vest
 ear_with_hearing_aid
 motorized_wheelchair
 manual_wheelchair
 mechanical_arm
 mechanical_leg
 cheese_wedge cheese
 cupcake
 salt
 beverage_box
 garlic
 onion
 falafel
 waffle
 butter
 mate_drink mate
 ice_cube
 bubble_tea
 troll
 standing_person
0-200d-2640-fe0f woman_standing standing_woman
0-200d-2642-fe0f man_standing standing_man
 kneeling_person
0-200d-2640-fe0f woman_kneeling kneeling_woman
0-200d-2640-fe0f-200d-27a1-fe0f woman_kneeling_facing_right
0-200d-2642-fe0f man_kneeling kneeling_man
0-200d-2642-fe0f-200d-27a1-fe0f man_kneeling_facing_right
0-200d-27a1-fe0f person_kneeling_facing_right
 deaf_person
0-200d-2640-fe0f deaf_woman
0-200d-2642-fe0f deaf_man
 face_with_monocle monocle_face
 adult
0-200d-2695-fe0f health_worker
0-200d-2696-fe0f judge
0-200d-2708-fe0f pilot
0-200d-1f33e farmer
0-200d-1f373 cook
0-200d-1f37c person_feeding_baby
0-200d-1f384 mx_claus
0-200d-1f393 student
0-200d-1f3a4 singer
0-200d-1f3a8 artist
0-200d-1f3eb teacher
0-200d-1f3ed factory_worker
0-200d-1f4bb technologist
0-200d-1f4bc office_worker
0-200d-1f527 mechanic
0-200d-1f52c scientist
0-200d-1f680 astronaut
0-200d-1f692 firefighter
0-200d-1f91d-200d-1f9d1 people_holding_hands
0-200d-1f9af person_with_probing_cane
0-200d-1f9af-200d-27a1-fe0f person_with_white_cane_facing_right
0-200d-1f9b0 red_haired_person person_red_hair
0-200d-1f9b1 curly_haired_person person_curly_hair
0-200d-1f9b2 bald_person person_bald
0-200d-1f9b3 white_haired_person person_white_hair
0-200d-1f9bc person_in_motorized_wheelchair
0-200d-1f9bc-200d-27a1-fe0f person_in_motorized_wheelchair_facing_right
0-200d-1f9bd person_in_manual_wheelchair
0-200d-1f9bd-200d-27a1-fe0f person_in_manual_wheelchair_facing_right
0-200d-1f9d1-200d-1f9d2 family_adult_adult_child
0-200d-1f9d1-200d-1f9d2-200d-1f9d2 family_adult_adult_child_child
0-200d-1f9d2 family_adult_child
0-200d-1f9d2-200d-1f9d2 family_adult_child_child
 child
 older_adult
 bearded_person
0-200d-2640-fe0f woman_with_beard woman_beard
0-200d-2642-fe0f man_with_beard man_beard
 person_with_headscarf woman_with_headscarf
 person_in_steamy_room sauna_person
0-200d-2640-fe0f woman_in_steamy_room sauna_woman
0-200d-2642-fe0f man_in_steamy_room sauna_man
 person_climbing climbing
0-200d-2640-fe0f woman_climbing climbing_woman
0-200d-2642-fe0f man_climbing climbing_man
 person_in_lotus_position lotus_position
0-200d-2640-fe0f woman_in_lotus_position lotus_position_woman
0-200d-2642-fe0f man_in_lotus_position lotus_position_man
 mage
0-200d-2640-fe0f female_mage mage_woman
0-200d-2642-fe0f male_mage mage_man
 fairy
0-200d-2640-fe0f female_fairy fairy_woman
0-200d-2642-fe0f male_fairy fairy_man
 vampire
0-200d-2640-fe0f female_vampire vampire_woman
0-200d-2642-fe0f male_vampire vampire_man
 merperson
0-200d-2640-fe0f mermaid
0-200d-2642-fe0f merman
 elf
0-200d-2640-fe0f female_elf elf_woman
0-200d-2642-fe0f male_elf elf_man
 genie
0-200d-2640-fe0f female_genie genie_woman
0-200d-2642-fe0f male_genie genie_man
 zombie
0-200d-2640-fe0f female_zombie zombie_woman
0-200d-2642-fe0f male_zombie zombie_man
 brain
 orange_heart
 billed_cap
 scarf
 gloves
 coat
 socks
 red_envelope
 firecracker
 jigsaw
 test_tube
 petri_dish
 dna
 compass
 abacus
 fire_extinguisher
 toolbox
 bricks
 magnet
 luggage
 lotion_bottle
 thread
 yarn
 safety_pin
 teddy_bear
 broom
 basket
 roll_of_paper
 soap
 sponge
 receipt
 nazar_amulet
71 ballet_shoes
 one-piece_swimsuit one_piece_swimsuit
 briefs swim_brief
 shorts
 thong_sandal
 light_blue_heart
 grey_heart
 pink_heart
 drop_of_blood
 adhesive_bandage
 stethoscope
 x-ray x_ray
 crutch
4 yo-yo yo_yo
 kite
 parachute
 boomerang
 magic_wand
 pinata
 nesting_dolls
 maracas
 flute
 harp
6 shovel
 ringed_planet
 chair
 razor
 axe
 diya_lamp
 banjo
 military_helmet
 accordion
 long_drum
 coin
 carpentry_saw
 screwdriver
 ladder
 hook
 mirror
 window
 plunger
 sewing_needle
 knot
 bucket
 mouse_trap
 toothbrush
 headstone
 placard
 rock
 mirror_ball
 identification_card
 low_battery
 hamsa
 folding_hand_fan
 hair_pick
 khanda
 fly
 worm
 beetle
 cockroach
 potted_plant
 wood
 feather
 lotus
 coral
 empty_nest
 nest_with_eggs
 hyacinth
 jellyfish
 wing
 leafless_tree
 goose
 anatomical_heart
 lungs
 people_hugging
 pregnant_man
 pregnant_person
 person_with_crown
 fingerprint
8 moose
 donkey
 blueberries
 bell_pepper
 olive
 flatbread
 tamale
 fondue
 teapot
 pouring_liquid
 beans
 jar
 ginger_root
 pea_pod
 root_vegetable
3 splatter
 melting_face
 saluting_face
 face_with_open_eyes_and_hand_over_mouth
 face_with_peeking_eye
 face_with_diagonal_mouth
 dotted_line_face
 biting_lip
 bubbles
 shaking_face
 face_with_bags_under_eyes
7 hand_with_index_finger_and_thumb_crossed
 rightwards_hand
 leftwards_hand
 palm_down_hand
 palm_up_hand
 index_pointing_at_the_viewer
 heart_hands
 leftwards_pushing_hand
 rightwards_pushing_hand
`;function Za(){let e=new Map,a=0;for(let i of _.split(`
`)){if(!i)continue;let[r,...f]=i.split(" "),[o,...l]=r.split("-");a+=o?parseInt(o,16):1;let t=s([a,...l.map(n=>parseInt(n,16))]);for(let n of f)e.set(n,t)}return e}function s(e){let a=String.fromCodePoint(...e);return e.length===1&&!/\p{Emoji_Presentation}/u.test(a)?a+"️":a}export{Za as buildTable};
